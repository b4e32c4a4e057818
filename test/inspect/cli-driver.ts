import { type ChildProcess, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Node code that registers the built (dist/) `show` and `inspect` commands on a fresh commander
 * program and runs it with the given arguments — the same code path main.ts wires up, without
 * depending on main.ts (which the lead edits).
 */
function driverCode(args: string[]): string {
  const dist = (p: string) => pathToFileURL(resolve(REPO_ROOT, "dist/src/cli", p)).href;
  return [
    'import { Command } from "commander";',
    `import { register as show } from ${JSON.stringify(dist("show.js"))};`,
    `import { register as inspect } from ${JSON.stringify(dist("inspect.js"))};`,
    'const program = new Command("patchloop");',
    "show(program); inspect(program);",
    `await program.parseAsync(${JSON.stringify(args)}, { from: "user" });`,
  ].join("\n");
}

/** Starts `patchloop <args>` from dist/ in a child process (cwd: the repository root). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ["--input-type=module", "-e", driverCode(args)], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs `patchloop <args>` to completion and returns its exit code and output. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((done) => child.on("close", (code) => done({ code, stdout, stderr })));
}

/** Waits until the child prints the viewer's URL (`open http://...`), or fails with its output. */
export function waitForUrl(child: ChildProcess, timeoutMs = 20_000): Promise<string> {
  return new Promise((done, fail) => {
    let out = "";
    const timer = setTimeout(
      () => fail(new Error(`no URL within ${timeoutMs} ms; output: ${out}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /open (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`exited with ${code} before printing a URL; output: ${out}`));
    });
  });
}
