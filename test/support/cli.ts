import { spawn } from "node:child_process";
import { join } from "node:path";

/** The built CLI (dist/ is built by the vitest global setup). */
export const BIN = join(import.meta.dirname, "..", "..", "bin", "patchloop.js");

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `patchloop ARGS` as a user would, asynchronously (an in-process fake server can answer). */
export function runPatchloop(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
