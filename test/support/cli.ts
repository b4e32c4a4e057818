import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

/** The built CLI (dist/ is built by the vitest global setup). */
export const BIN = join(import.meta.dirname, "..", "..", "bin", "patchloop.js");

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A `patchloop` process of a test: its output kept, its end awaited. */
export interface CliProcess {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `patchloop ARGS` from dist/ with the environment `env` (the whole of it: process.env unless
 * given) in `cwd`, keeping what it prints; for tests that signal it or watch it while it runs.
 */
export function startPatchloop(
  args: string[],
  o: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): CliProcess {
  const proc = spawn(process.execPath, [BIN, ...args], {
    cwd: o.cwd,
    env: o.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout?.on("data", (d) => {
    out += d;
  });
  proc.stderr?.on("data", (d) => {
    err += d;
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { proc, out: () => out, err: () => err, done };
}

/** Runs `patchloop ARGS` as a user would, asynchronously (an in-process fake server can answer). */
export function runPatchloop(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const p = startPatchloop(args, { env: { ...process.env, ...env }, cwd });
    p.proc.on("error", reject);
    p.done.then(({ code }) => resolve({ code, stdout: p.out(), stderr: p.err() }));
  });
}
