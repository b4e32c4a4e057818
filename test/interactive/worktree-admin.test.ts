import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openWorkspace } from "../../src/interactive/workspace.js";
import { git, makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

describe("the worktree's git folder (read from its .git file, not asked of git)", () => {
  it("is the folder git itself names, also when the worktree's path passes a symbolic link", async () => {
    const root = tempDir();
    const repo = join(root, "repo");
    makeRepo(repo, { "a.txt": "a\n" });
    mkdirSync(join(root, "real"));
    symlinkSync(join(root, "real"), join(root, "linked"));
    for (const [i, parent] of [join(root, "real"), join(root, "linked")].entries()) {
      const worktreeDir = join(parent, `wt-${i}`);
      const ws = await openWorkspace({
        repo,
        mode: "worktree",
        allowDirty: false,
        runId: `r${i}`,
        worktreeDir,
      });
      expect(readFileSync(join(worktreeDir, ".git"), "utf8")).toMatch(/^gitdir: /);
      expect(ws.admin).toBe(git(worktreeDir, "rev-parse", "--absolute-git-dir").trim());
      expect(ws.admin).toBe(join(root, "repo", ".git", "worktrees", `wt-${i}`));
    }
  });
});
