import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { encodeRequest, Launcher } from "../../src/environments/launcher.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { waitFor } from "../support/wait-for.js";

const dir = mkdtempSync(join(tmpdir(), "patchloop-launcher-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("launcher (local commands started by a helper shell)", () => {
  it("runs hundreds of commands in a row with exact output and exit codes, then still times one out", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    for (let i = 0; i < 200; i++) {
      expect(await env.exec(`printf 'n=%s' ${i}; exit ${i % 7}`)).toEqual({
        output: `n=${i}`,
        returncode: i % 7,
        timedOut: false,
        truncated: false,
      });
    }
    // The pid of a fast command can arrive after its end: the timeout must still kill the right one.
    const slow = await env.exec("echo started; sleep 30", { timeout: 0.5 });
    expect(slow).toEqual({ output: "started\n", returncode: -1, timedOut: true, truncated: false });
    await env.close();
  });

  it("reports a command stopped by its abort signal as interrupted, not timed out, however it was started", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    const interrupted = {
      output: "begun\n",
      returncode: -1,
      timedOut: false,
      interrupted: true,
      truncated: false,
    };
    for (const stdin of [undefined, ""]) {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const r = await env.exec("echo begun; sleep 30", { stdin, timeout: 20, signal: controller.signal });
      expect(r).toEqual(interrupted);
      // A signal that has already fired stops the command at once.
      expect(await env.exec("sleep 30", { stdin, signal: AbortSignal.abort() })).toEqual({
        ...interrupted,
        output: "",
      });
      // With a signal that does not fire, the timeout stops it: timed out, not interrupted.
      const timed = await env.exec("echo begun; sleep 30", {
        stdin,
        timeout: 0.3,
        signal: new AbortController().signal,
      });
      expect(timed).toEqual({ output: "begun\n", returncode: -1, timedOut: true, truncated: false });
    }
    await env.close();
  });

  it("keeps output of every size whole, including bytes that look like its end marker", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    for (const n of [1, 4095, 4096, 65535, 65536, 65537, 200_001]) {
      const r = await env.exec(`head -c ${n} /dev/zero | tr '\\0' a`);
      expect(r.output.length).toBe(n);
      expect(r.output).toBe("a".repeat(n));
    }
    const fake = await env.exec("printf 'x\\0abcdef0123456789abcdef01:0\\ny'; exit 4");
    expect(fake).toMatchObject({ output: "x\0abcdef0123456789abcdef01:0\ny", returncode: 4 });
    await env.close();
  });

  it("gives a command killed by a signal 128 + the signal number, like a shell does", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    expect(await env.exec("kill -TERM $$")).toMatchObject({ returncode: 143, timedOut: false });
    expect(await env.exec("kill -KILL $$")).toMatchObject({ returncode: 137, timedOut: false });
    // The same through a direct spawn (commands with stdin).
    expect(await env.exec("kill -TERM $$", { stdin: "" })).toMatchObject({
      returncode: 143,
      timedOut: false,
    });
    await env.close();
  });

  it("gives commands the same variables and folder as a command started directly", async () => {
    const env = createLocalEnvironment({ cwd: dir, env: { PATCHLOOP_T: "config" } });
    const probe = 'echo "$SHLVL|$PWD|$PATCHLOOP_T|$PATCHLOOP_X|$(pwd)|[$OLDPWD]"';
    const viaHelper = await env.exec(probe, { env: { PATCHLOOP_X: "per command" } });
    // Commands with stdin are spawned directly.
    const direct = await env.exec(`cat >/dev/null; ${probe}`, {
      env: { PATCHLOOP_X: "per command" },
      stdin: "",
    });
    expect(viaHelper.output).toBe(direct.output);
    const [shlvl, , , , , oldpwd] = direct.output.split("|");
    expect(viaHelper.output).toBe(`${shlvl}|${dir}|config|per command|${dir}|${oldpwd}`);
    // A name the helper cannot export is passed by a direct spawn instead.
    expect((await env.exec("env | grep '^ODD-NAME='", { env: { "ODD-NAME": "kept" } })).output).toBe(
      "ODD-NAME=kept\n",
    );
    await env.close();
  });

  it("carries commands, folders and values byte for byte, and gives LC_ALL back as it came", async () => {
    const odd = join(dir, "dossier é ü 漢字 'q' $x");
    execFileSync("mkdir", ["-p", odd]);
    const probe = `printf '%s|%s|%s|%s' "$PWD" "\${LC_ALL-unset}" "$PATCHLOOP_X" 'ünï côdé ✓ \\ "'`;
    for (const lcAll of [undefined, "C.UTF-8"]) {
      const env = createLocalEnvironment({ cwd: odd, env: lcAll ? { LC_ALL: lcAll } : {} });
      const value = "multi\nline é 漢 \\ $HOME `x`";
      const viaHelper = await env.exec(probe, { env: { PATCHLOOP_X: value } });
      const direct = await env.exec(`cat >/dev/null; ${probe}`, { env: { PATCHLOOP_X: value }, stdin: "" });
      expect(viaHelper).toEqual(direct);
      expect(viaHelper.output).toBe(`${odd}|${lcAll ?? "unset"}|${value}|ünï côdé ✓ \\ "`);
      // a command longer than one read of the pipe (64 KiB), with multi-byte characters across it
      const long = "é".repeat(50_000);
      expect((await env.exec(`printf %s '${long}' | wc -c`)).output.trim()).toBe(
        String(Buffer.byteLength(long)),
      );
      await env.close();
    }
  });

  it("runs two commands of one environment at once (the second is spawned directly)", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    const [a, b] = await Promise.all([env.exec("sleep 0.3; echo a"), env.exec("echo b; exit 2")]);
    expect(a).toMatchObject({ output: "a\n", returncode: 0 });
    expect(b).toMatchObject({ output: "b\n", returncode: 2 });
    await env.close();
  });

  it("returns when the command ends although a background job holds the output, and kills that job", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    const pidFile = join(dir, "bg.pid");
    const t0 = Date.now();
    const r = await env.exec(`sleep 60 & echo $! > ${pidFile}; echo done`);
    expect(r).toMatchObject({ output: "done\n", returncode: 0 });
    expect(Date.now() - t0).toBeLessThan(10_000);
    const bg = Number(execFileSync("cat", [pidFile]).toString());
    expect(await waitFor(() => !alive(bg), 5000)).toBe(true);
    await env.close();
  });

  it("reports a helper that dies during a command and starts a new one for the next command", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    const r = await env.exec("echo before; kill -KILL $PPID; sleep 5; echo never");
    expect(r.returncode).toBe(-1);
    // Only what the command printed and the note: nothing the helper's bash says (its script text).
    expect(r.output).toBe(
      "before\n\n[patchloop: the helper process that starts commands ended unexpectedly (killed by SIGKILL), " +
        "so this command's result is unknown; the next command starts a new one]",
    );
    expect(await env.exec("echo after")).toMatchObject({ output: "after\n", returncode: 0 });
    await env.close();
  });

  it("keeps what a dying helper's command printed when the helper's exit is seen before its output", async () => {
    // The helper runs under a wrapper that exits as soon as the helper dies, while a grandchild
    // still holds the output and hands it on 0.1 s later: the exit event comes first, every time.
    const late = new Launcher(
      {},
      {
        // (fd 3: a job started with & would get /dev/null as its input)
        wrap: (argv) => [
          "bash",
          "-c",
          'exec 3<&0; "$@" <&3 3<&- > >(sleep 0.1; cat) & wait $!',
          "w",
          ...argv,
        ],
        spawnEnv: process.env as Record<string, string>,
        kill: () => {},
      },
    );
    const r = await late.run({
      command: "echo before; kill -KILL $PPID; sleep 1",
      cwd: dir,
      env: {},
      captureLimit: 1000,
    });
    expect(r).toEqual({
      output:
        "before\n\n[patchloop: the helper process that starts commands ended unexpectedly (exit status 137), " +
        "so this command's result is unknown; the next command starts a new one]",
      returncode: -1,
      timedOut: false,
      truncated: false,
    });
    late.close();
  });

  it("does not keep the process alive with the helper of an environment nobody closed", () => {
    const script = join(dir, "exit-check.mjs");
    const local = resolve("dist/src/environments/local.js");
    writeFileSync(
      script,
      `import { createLocalEnvironment } from ${JSON.stringify(local)};\n` +
        `const env = createLocalEnvironment({ cwd: ${JSON.stringify(dir)} });\n` +
        `console.log((await env.exec("echo ran")).output.trim());\n`,
    );
    const r = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 20_000 });
    expect(r.error).toBeUndefined();
    expect(r.stdout).toBe("ran\n");
    expect(r.status).toBe(0);
  });

  it("drops a helper whose stopped command does not end, and starts a new one", async () => {
    const deaf = new Launcher(
      {},
      { wrap: (argv) => argv, spawnEnv: process.env as Record<string, string>, kill: () => {} },
    );
    const req = { cwd: dir, env: {}, captureLimit: 1000 };
    const t0 = Date.now();
    const r = await deaf.run({ ...req, command: "echo x; sleep 8", timeout: 0.3 });
    expect(r).toEqual({ output: "x\n", returncode: -1, timedOut: true, truncated: false });
    expect(Date.now() - t0).toBeLessThan(7000);
    expect(await deaf.run({ ...req, command: "echo again" })).toMatchObject({
      output: "again\n",
      returncode: 0,
    });
    deaf.close();
  });

  it("says why when its helper cannot start", async () => {
    const broken = new Launcher(
      {},
      {
        wrap: () => ["/nonexistent/patchloop-helper"],
        spawnEnv: process.env as Record<string, string>,
        kill: () => {},
      },
    );
    expect(await broken.run({ cwd: dir, env: {}, captureLimit: 1000, command: "true" })).toEqual({
      output: "failed to start /nonexistent/patchloop-helper: spawn /nonexistent/patchloop-helper ENOENT",
      returncode: 127,
      timedOut: false,
      truncated: false,
    });
    broken.close();
  });

  it("writes each field as its byte length in 8 digits, then its bytes", () => {
    expect(encodeRequest(["ab", "", "é✓"])?.toString("utf8")).toBe("00000002ab0000000000000005é✓");
  });

  it("declines what it cannot carry, so the caller spawns directly", () => {
    const l = new Launcher({});
    const req = { cwd: dir, env: {}, captureLimit: 1000 };
    expect(l.run({ ...req, command: "echo a\0b" })).toBeNull();
    expect(l.run({ ...req, command: "true", env: { "A B": "x" } })).toBeNull();
    expect(l.run({ ...req, command: "true", env: { A: "x\0y" } })).toBeNull();
    // a field longer than its 8-digit length can say: `A=` and the value make 100,000,000 bytes
    expect(l.run({ ...req, command: "true", env: { A: "x".repeat(99_999_998) } })).toBeNull();
    l.close();
    expect(l.run({ ...req, command: "true" })).toBeNull();
  });
});
