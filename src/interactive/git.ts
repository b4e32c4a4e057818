import { execFile } from "node:child_process";

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs git (or, with `bash: true`, a bash script) on this machine in `cwd`, for the person's
 * repository: never inside the task's environment. Never rejects; the caller reads `code`.
 */
export function runGit(
  cwd: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string>; bash?: boolean } = {},
): Promise<GitResult> {
  return new Promise((resolve) => {
    const [file, argv] = opts.bash ? ["bash", ["-c", args.join(" ")]] : ["git", args];
    const child = execFile(
      file,
      argv,
      {
        cwd,
        env: { ...process.env, ...opts.env },
        maxBuffer: 512 * 1024 * 1024,
        encoding: "utf8",
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr: stderr || (err && code !== 0 && !stderr ? err.message : "") });
      },
    );
    child.stdin?.on("error", () => {});
    child.stdin?.end(opts.input ?? "");
  });
}

/** git that must succeed: rejects with the command, the folder and git's own words. */
export async function git(
  cwd: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string> } = {},
): Promise<string> {
  const r = await runGit(cwd, args, opts);
  if (r.code !== 0)
    throw new Error(`git ${args.join(" ")} (in ${cwd}) failed: ${(r.stderr || `exit ${r.code}`).trim()}`);
  return r.stdout;
}
