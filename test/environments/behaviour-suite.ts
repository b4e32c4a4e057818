import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Environment } from "../../src/environments/types.js";
import { hostProcessesWith } from "../support/engines.js";
import { waitFor } from "../support/wait-for.js";

/** What the shared behaviour suite needs from one kind of environment. */
export interface SuiteTarget {
  /**
   * Creates the environment. It must set PATCHLOOP_SUITE_VAR=from-config for every command and keep
   * at most {@link SUITE_CAPTURE_LIMIT} bytes of output.
   */
  create(): Promise<Environment>;
  /** A writable folder inside the environment for the file tests. */
  scratchDir(env: Environment): string;
  /** Called after the environment is closed (remove temp folders). */
  cleanup?(): Promise<void>;
}

export const SUITE_CAPTURE_LIMIT = 100_000;

/** Collects an interactive process's output and waits for a text to appear in it. */
function collector(proc: NonNullable<ReturnType<NonNullable<Environment["spawn"]>>>) {
  let text = "";
  proc.onData((c) => {
    text += c;
  });
  return {
    get text() {
      return text;
    },
    until: (needle: string, ms = 10_000) => waitFor(() => text.includes(needle), ms),
  };
}

/**
 * The behaviour every environment shares (docs/sandbox.md, docs/architecture.md "environment"). Call inside a describe block;
 * one environment serves all tests of the block.
 */
export function environmentBehaviourSuite(target: SuiteTarget): void {
  let env: Environment;
  beforeAll(async () => {
    env = await target.create();
  });
  afterAll(async () => {
    await env?.close();
    await env?.close();
    await target.cleanup?.();
  });

  it("reports exit codes", async () => {
    expect(await env.exec("true")).toMatchObject({ output: "", returncode: 0, timedOut: false });
    expect((await env.exec("false")).returncode).toBe(1);
    expect((await env.exec("exit 42")).returncode).toBe(42);
  });

  it("captures stdout and stderr together in order", async () => {
    const r = await env.exec("echo out; sleep 0.1; echo err >&2; sleep 0.1; printf 'last'");
    expect(r.output).toBe("out\nerr\nlast");
    expect(r.truncated).toBe(false);
  });

  it("feeds stdin", async () => {
    expect((await env.exec("tr a-z A-Z", { stdin: "hello\n" })).output).toBe("HELLO\n");
  });

  it("kills the whole command on timeout, keeps partial output, leaves no process", async () => {
    const marker = `31.${randomBytes(3).readUIntBE(0, 3)}`;
    const started = Date.now();
    const r = await env.exec(`sleep ${marker}1 & echo partial; sleep ${marker}2`, { timeout: 1 });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(r).toMatchObject({ output: "partial\n", returncode: -1, timedOut: true });
    expect(r.interrupted).toBeUndefined();
    expect(await waitFor(() => hostProcessesWith(`sleep ${marker}`).length === 0, 5_000)).toBe(true);
    const inside = await env.exec(
      `for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr '\\0' ' '; echo; done | grep -c "sleep ${marker.replace(".", "[.]")}" || true`,
    );
    expect(inside.output.trim()).toBe("0");
  });

  it("returns when the command ends, even if it left a background job holding the output", async () => {
    const started = Date.now();
    const r = await env.exec("sleep 20 & echo launched", { timeout: 15 });
    expect(r).toMatchObject({ output: "launched\n", returncode: 0, timedOut: false });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("stops a command when its abort signal fires, and says it was interrupted, not timed out", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const r = await env.exec("echo begun; sleep 30", { signal: controller.signal, timeout: 20 });
    expect(r).toMatchObject({ output: "begun\n", returncode: -1, timedOut: false, interrupted: true });
    // A command with input is started another way; the same holds.
    const again = new AbortController();
    setTimeout(() => again.abort(), 300);
    const fed = await env.exec("cat; sleep 30", { stdin: "fed\n", signal: again.signal, timeout: 20 });
    expect(fed).toMatchObject({ output: "fed\n", returncode: -1, timedOut: false, interrupted: true });
  });

  it("a command with input past its timeout is timed out, not interrupted", async () => {
    const r = await env.exec("cat; sleep 30", { stdin: "fed\n", timeout: 0.5 });
    expect(r).toMatchObject({ output: "fed\n", returncode: -1, timedOut: true });
    expect(r.interrupted).toBeUndefined();
  });

  it("caps huge output, keeping head and tail", async () => {
    const r = await env.exec("yes | head -c 3000000; echo; echo THE-END");
    expect(r.returncode).toBe(0);
    expect(r.truncated).toBe(true);
    expect(r.output.startsWith("y\ny\n")).toBe(true);
    expect(r.output.endsWith("THE-END\n")).toBe(true);
    expect(r.output).toMatch(/\[\.\.\. \d+ bytes of output dropped by the capture limit \.\.\.\]/);
    expect(r.output.length).toBeLessThan(SUITE_CAPTURE_LIMIT + 200);
    const endless = await env.exec("yes", { timeout: 1 });
    expect(endless.timedOut).toBe(true);
    expect(endless.output.length).toBeLessThan(SUITE_CAPTURE_LIMIT + 200);
  });

  it("sets variables from config and per command", async () => {
    expect((await env.exec("echo $PATCHLOOP_SUITE_VAR")).output).toBe("from-config\n");
    const r = await env.exec('echo "$PATCHLOOP_SUITE_VAR|$OTHER"', {
      env: { PATCHLOOP_SUITE_VAR: "per-command", OTHER: "two words" },
    });
    expect(r.output).toBe("per-command|two words\n");
  });

  it("tells Python to write no bytecode (PYTHONDONTWRITEBYTECODE=1), in commands and in a spawned shell", async () => {
    expect((await env.exec('echo "[$(printenv PYTHONDONTWRITEBYTECODE || echo unset)]"')).output).toBe(
      "[1]\n",
    );
    expect(
      (await env.exec('echo "[$(printenv PYTHONDONTWRITEBYTECODE || echo unset)]"', { stdin: "" })).output,
    ).toBe("[1]\n");
    const proc = env.spawn!(["bash", "-c", 'echo "[$(printenv PYTHONDONTWRITEBYTECODE || echo unset)]"']);
    const out = collector(proc);
    expect(await out.until("]\n")).toBe(true);
    expect(out.text).toBe("[1]\n");
  });

  it("runs in the environment's cwd unless told otherwise", async () => {
    expect((await env.exec("pwd")).output).toBe(`${env.cwd}\n`);
    expect((await env.exec("pwd", { cwd: "/tmp" })).output).toBe("/tmp\n");
  });

  it("round-trips binary files and creates parent folders", async () => {
    const bytes = Buffer.concat([Buffer.from([0, 255, 254, 10, 13, 0x80, 0xc3]), randomBytes(70_000)]);
    const path = `${target.scratchDir(env)}/nested/dir/blob.bin`;
    await env.writeFile(path, bytes);
    expect((await env.exec(`wc -c < ${path}`)).output.trim()).toBe(String(bytes.length));
    expect(Buffer.compare(await env.readFile(path), bytes)).toBe(0);
    await env.writeFile(path, "replaced\n");
    expect((await env.readFile(path)).toString()).toBe("replaced\n");
  });

  it("shares /tmp between commands and file calls", async () => {
    await env.writeFile("/tmp/patchloop-suite/note.txt", "from writeFile");
    expect((await env.exec("cat /tmp/patchloop-suite/note.txt")).output).toBe("from writeFile");
    await env.exec("printf 'from exec' > /tmp/patchloop-suite/back.txt");
    expect((await env.readFile("/tmp/patchloop-suite/back.txt")).toString()).toBe("from exec");
  });

  it("rejects missing and relative paths with a readable error", async () => {
    await expect(env.readFile("/nonexistent/patchloop/file.txt")).rejects.toThrow(
      /\/nonexistent\/patchloop\/file\.txt/,
    );
    await expect(env.readFile("relative.txt")).rejects.toThrow(/must be absolute/);
  });

  it("runs a persistent bash: state survives, interrupt stops the running command", async () => {
    const proc = env.spawn!(["bash"]);
    const out = collector(proc);
    proc.write("X=kept; cd /tmp\n");
    proc.write('echo "x=$X pwd=$(pwd)"\n');
    expect(await out.until("x=kept pwd=/tmp\n")).toBe(true);
    proc.write("trap 'echo got-int' INT\n");
    // "sleeping" comes from the process that becomes `sleep`, so once it shows the command runs
    proc.write("sh -c 'echo sleeping; exec sleep 30'; echo \"after=$?\"\n");
    expect(await out.until("sleeping\n")).toBe(true);
    proc.interrupt();
    expect(await out.until("after=130\n")).toBe(true);
    expect(out.text).toContain("got-int");
    proc.write("echo still-alive\n");
    expect(await out.until("still-alive\n")).toBe(true);
    let exitCode: number | null | undefined;
    proc.onExit((c) => {
      exitCode = c;
    });
    proc.kill();
    expect(await waitFor(() => proc.exited && exitCode !== undefined, 10_000)).toBe(true);
  });
}
