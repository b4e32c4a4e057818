import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { describeWithEngine, hostProcessesWith } from "../support/engines.js";
import { waitFor } from "../support/wait-for.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dist = (name: string) => join(root, "dist/src/environments", name);
const dir = mkdtempSync(join(tmpdir(), "patchloop-parent-death-"));
const started: ChildProcess[] = [];
const markers: string[] = [];
afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  // Should a test fail, what it left running goes here.
  for (const m of markers) {
    for (const line of hostProcessesWith(m)) {
      try {
        process.kill(Number(line.split(":")[0]), "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Alive and not a zombie (a zombie's parent has not reaped it yet; it runs nothing). */
const running = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/**
 * Starts a separate Node process that creates an environment with `create` (an expression using
 * the imported `make`) and starts `sleep 300` in it, named `marker`, without awaiting it; then
 * it stays alive.
 */
function startNode(module: string, exportName: string, create: string, marker: string): ChildProcess {
  markers.push(marker);
  const command = `exec -a ${marker} sleep 300`;
  const script = join(dir, `holder-${randomBytes(4).toString("hex")}.mjs`);
  writeFileSync(
    script,
    `import { ${exportName} as make } from ${JSON.stringify(dist(module))};\n` +
      `const env = ${create};\n` +
      `env.exec(${JSON.stringify(command)});\n` +
      "setInterval(() => {}, 1000);\n",
  );
  const child = spawn(process.execPath, [script], { stdio: "ignore" });
  started.push(child);
  return child;
}

/** Kills `node` with SIGKILL (no handler of it runs) and waits for it to be gone. */
async function killNode(node: ChildProcess): Promise<void> {
  const gone = new Promise((r) => node.once("exit", r));
  node.kill("SIGKILL");
  await gone;
}

describe("launcher: a command does not outlive the process that started it", () => {
  it("a Node process killed with SIGKILL takes its running local command with it", async () => {
    const marker = `patchloop-orphan-${randomBytes(6).toString("hex")}`;
    const node = startNode(
      "local.js",
      "createLocalEnvironment",
      `make({ cwd: ${JSON.stringify(dir)} })`,
      marker,
    );
    expect(await waitFor(() => hostProcessesWith(`${marker} 300`).length === 1, 15_000)).toBe(true);
    const pid = Number(hostProcessesWith(`${marker} 300`)[0].split(":")[0]);
    expect(running(pid)).toBe(true);
    await killNode(node);
    expect(await waitFor(() => !running(pid), 5_000)).toBe(true);
    expect(hostProcessesWith(marker)).toEqual([]);
  });

  it("a helper ended by SIGTERM during a command: the command is reported and gone, the next gets a new helper", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    const helper = Number((await env.exec("echo $PPID")).output);
    const marker = `patchloop-term-${randomBytes(6).toString("hex")}`;
    markers.push(marker);
    const pending = env.exec(`echo begun; exec -a ${marker} sleep 300`);
    expect(await waitFor(() => hostProcessesWith(`${marker} 300`).length === 1, 10_000)).toBe(true);
    process.kill(helper, "SIGTERM");
    const r = await pending;
    expect(r.returncode).toBe(-1);
    expect(r.output).toBe(
      "begun\n\n[patchloop: the helper process that starts commands ended unexpectedly (exit status 143), " +
        "so this command's result is unknown; the next command starts a new one]",
    );
    expect(await waitFor(() => hostProcessesWith(marker).length === 0, 5_000)).toBe(true);
    const next = await env.exec("echo $PPID");
    expect(Number(next.output)).not.toBe(helper);
    expect(next.returncode).toBe(0);
    await env.close();
  });

  it("a helper ended by SIGTERM while idle is simply replaced", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    const helper = Number((await env.exec("echo $PPID")).output);
    process.kill(helper, "SIGTERM");
    // Reaped (not only dead): this process has then seen it exit.
    expect(await waitFor(() => !existsSync(`/proc/${helper}`), 5_000)).toBe(true);
    expect(await env.exec("echo after")).toEqual({
      output: "after\n",
      returncode: 0,
      timedOut: false,
      truncated: false,
    });
    await env.close();
  });

  it("commands get the signal dispositions of a directly started command (the helper's traps stay in it)", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    // The command's shell reads its own status with builtins: a child reading it instead could
    // catch the shell between its fork and its wait, with SIGINT and SIGTERM still blocked and
    // SIGINT not yet caught (a race, lost more often when the runner started in the background).
    const probe =
      "while IFS= read -r l; do [[ $l == Sig[BIC]* ]] && printf '%s\\n' \"$l\"; done < /proc/$$/status; " +
      "grep -E '^Sig(Blk|Ign|Cgt)' /proc/self/status; trap -p";
    const viaHelper = await env.exec(probe);
    const direct = await env.exec(probe, { stdin: "" });
    expect(viaHelper.output).toBe(direct.output);
    const lines = viaHelper.output.split("\n");
    // Neither the command's shell nor its children block a signal; the children ignore none.
    expect([lines[0], lines[3], lines[4]]).toEqual([
      "SigBlk:\t0000000000000000",
      "SigBlk:\t0000000000000000",
      "SigIgn:\t0000000000000000",
    ]);
    // TERM, HUP and INT end a command as they end any program.
    for (const [sig, code] of [
      ["TERM", 143],
      ["HUP", 129],
      ["INT", 130],
    ] as const) {
      expect(await env.exec(`kill -${sig} $$; echo survived`)).toMatchObject({
        output: "",
        returncode: code,
      });
    }
    await env.close();
  });

  it("starts the helper without setpriv where PATH has none", () => {
    const bin = join(dir, "bin-without-setpriv");
    rmSync(bin, { recursive: true, force: true });
    mkdirBash(bin);
    expect(execWithPath(bin, "echo $((6 * 7)) $PATH")).toEqual({
      output: `42 ${bin}\n`,
      returncode: 0,
      timedOut: false,
      truncated: false,
    });
  });

  it("an old setpriv without --pdeathsig (util-linux < 2.33, busybox) is not used", () => {
    const bin = join(dir, "bin-old-setpriv");
    rmSync(bin, { recursive: true, force: true });
    mkdirBash(bin);
    for (const tool of ["true", "cat"]) {
      const path = execFileSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
      symlinkSync(path, join(bin, tool));
    }
    writeFileSync(
      join(bin, "setpriv"),
      '#!/bin/bash\nif [ "$1" = --pdeathsig ]; then echo "setpriv: unrecognized option \'--pdeathsig\'" >&2; exit 1; fi\nexec "$@"\n',
    );
    chmodSync(join(bin, "setpriv"), 0o755);
    expect(execWithPath(bin, "echo $((6 * 7))")).toEqual({
      output: "42\n",
      returncode: 0,
      timedOut: false,
      truncated: false,
    });
  });
});

/**
 * Runs `command` in a local environment created by a separate Node process whose PATH is only
 * `bin`; returns the exec result (and checks that the process printed nothing on stderr).
 */
function execWithPath(bin: string, command: string): unknown {
  const script = join(dir, `exec-${randomBytes(4).toString("hex")}.mjs`);
  writeFileSync(
    script,
    `import { createLocalEnvironment } from ${JSON.stringify(dist("local.js"))};\n` +
      `const env = createLocalEnvironment({ cwd: ${JSON.stringify(dir)} });\n` +
      `const r = await env.exec(${JSON.stringify(command)});\n` +
      "console.log(JSON.stringify(r));\n" +
      "await env.close();\n",
  );
  const r = spawnSync(process.execPath, [script], {
    encoding: "utf8",
    timeout: 20_000,
    env: { PATH: bin, HOME: dir },
  });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout);
}

/** A folder holding only a link to bash. */
function mkdirBash(bin: string): void {
  mkdirSync(bin, { recursive: true });
  const bash = execFileSync("bash", ["-c", "command -v bash"], { encoding: "utf8" }).trim();
  symlinkSync(bash, join(bin, "bash"));
}

describeWithEngine(
  "bwrap",
  "launcher in bwrap: a command does not outlive the process that started it",
  () => {
    it("a Node process killed with SIGKILL leaves nothing of its sandbox", async () => {
      const marker = `patchloop-orphan-${randomBytes(6).toString("hex")}`;
      const node = startNode(
        "bwrap.js",
        "createBwrapEnvironment",
        `make({ repoDir: ${JSON.stringify(dir)} })`,
        marker,
      );
      expect(await waitFor(() => hostProcessesWith(`${marker} 300`).length === 1, 15_000)).toBe(true);
      await killNode(node);
      expect(await waitFor(() => hostProcessesWith(marker).length === 0, 5_000)).toBe(true);
    });
  },
);
