import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A git repository for benchmarks with `files` in one commit; returns the commit id. */
export function makeBenchRepo(dir: string, files: Record<string, string> = { "a.txt": "a\n" }): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "b",
    GIT_AUTHOR_EMAIL: "b@example.invalid",
    GIT_COMMITTER_NAME: "b",
    GIT_COMMITTER_EMAIL: "b@example.invalid",
  };
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["commit", "-q", "-m", "base"],
  ])
    execFileSync("git", args, { cwd: dir, env });
  return execFileSync("git", ["rev-parse", "HEAD"], { cwd: dir, encoding: "utf8" }).trim();
}
