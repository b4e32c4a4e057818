import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openInstanceEnvironment } from "../../src/batch/instance-environment.js";
import { loadConfig } from "../../src/config/load.js";
import { openInstance } from "../../src/instance/open.js";
import { cloneDirFor, createWorkspace } from "../../src/instance/workspace.js";
import { engineStatus, IN_CI } from "../support/engines.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";

/**
 * The work tree of an instance holds the history up to its base commit and nothing after it: on
 * SWE-bench the later commits hold the fix. The clone here gets a commit on top of the base that
 * fixes the bug (as upstream history does), and the agent's `git log --all`,
 * `git cat-file --batch-all-objects` and `git show <fix>` must not reach it.
 */

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "u",
  GIT_AUTHOR_EMAIL: "u@example.invalid",
  GIT_COMMITTER_NAME: "u",
  GIT_COMMITTER_EMAIL: "u@example.invalid",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: GIT_ENV }).trim();
}

let f: FixtureInstances;
/** The commit after instance 1's base that fixes it, and the blob of the fixed file. */
let fix = { commit: "", blob: "" };

let root = "";

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "patchloop-history-"));
  f = buildFixtureInstances(root, { count: 2, repos: 1 });
  const clone = cloneDirFor(f.reposDir, f.rows[0].repo);
  git(clone, "checkout", "-q", "-b", "upstream", f.rows[0].base_commit);
  writeFileSync(join(clone, "pkg0", "op1.py"), 'def add1(a, b):\n    """THE-FIX"""\n    return a + b\n');
  git(clone, "commit", "-q", "-am", "fix add1 (the commit after the base)");
  fix = { commit: git(clone, "rev-parse", "HEAD"), blob: git(clone, "rev-parse", "HEAD:pkg0/op1.py") };
  git(clone, "checkout", "-q", "main");
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const PROBE = [
  "git log --all --format=%H",
  "echo ---",
  "git cat-file --batch-all-objects --batch-check='%(objectname)'",
  "echo ---",
  "git show FIX 2>&1 | head -3; echo show=$?",
  "git rev-parse HEAD",
].join("; ");

const kinds = ["local", ...(engineStatus("bwrap").ok || IN_CI ? ["bwrap"] : [])] as const;

describe("the work tree holds no history after the base commit", () => {
  it.each(kinds)(
    "%s: git log --all, every object and git show reach nothing after the base",
    async (kind) => {
      const config = loadConfig({
        configArgs: ["swebench", "model.model_name=scripted", `environment.environment_class=${kind}`],
        defaultConfig: "swebench",
      }).config;
      const opened = await openInstanceEnvironment(config, f.rows[0], {
        reposDir: f.reposDir,
        workRoot: tempDir(),
      });
      try {
        const r = await opened.env.exec(PROBE.replace("FIX", fix.commit));
        expect(r.returncode).toBe(0);
        const [log, objects, rest] = r.output.split("---\n");
        expect(log.trim().split("\n")).toEqual([
          f.rows[0].base_commit,
          git(f.reposDir, "-C", "acme__lib0", "rev-list", "--max-parents=0", "main"),
        ]);
        expect(objects).not.toContain(fix.commit);
        expect(objects).not.toContain(fix.blob);
        // The other instance's base commit is not in this history either.
        expect(objects).not.toContain(f.rows[1].base_commit);
        expect(rest).toContain("fatal: bad object");
        expect(rest.trim().split("\n").at(-1)).toBe(f.rows[0].base_commit);
        expect((await opened.env.exec("cat pkg0/op1.py")).output).toContain("# BUG");
      } finally {
        await opened.cleanup();
      }
    },
  );

  it("eval's work trees (local) reach nothing after the base either", async () => {
    const config = loadConfig({
      configArgs: ["swebench", "environment.environment_class=local"],
      defaultConfig: "swebench",
    }).config;
    const opened = await openInstance(config.environment, f.rows[0], "grade", { reposDir: f.reposDir });
    try {
      const r = await opened.env.exec(PROBE.replace("FIX", fix.commit), { cwd: opened.repoDir });
      const [, objects, rest] = r.output.split("---\n");
      expect(objects).not.toContain(fix.commit);
      expect(objects).not.toContain(fix.blob);
      expect(rest).toContain("fatal: bad object");
    } finally {
      await opened.close();
    }
  });

  it("the history cache itself holds nothing after the commits it was asked for", async () => {
    const cache = tempDir();
    const ws = await createWorkspace(f.reposDir, f.rows[0], tempDir(), { historyCache: cache });
    try {
      const objects = ws.objectDirs
        .map((d) =>
          execFileSync("git", ["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"], {
            encoding: "utf8",
            env: { ...GIT_ENV, GIT_DIR: join(ws.dir, ".git"), GIT_OBJECT_DIRECTORY: d },
          }),
        )
        .join("\n");
      expect(objects).toContain(f.rows[0].base_commit);
      expect(objects).not.toContain(fix.commit);
      expect(objects).not.toContain(fix.blob);
      expect(readdirSync(join(cache, "acme__lib0")).sort()).toEqual([f.rows[0].base_commit]);
    } finally {
      await ws.remove();
    }
    // A second instance of the repository builds on the first entry only when that is its ancestor.
    const second = await createWorkspace(f.reposDir, f.rows[1], tempDir(), { historyCache: cache });
    try {
      expect(second.objectDirs).toEqual([join(cache, "acme__lib0", f.rows[1].base_commit, "objects")]);
      expect(git(second.dir, "rev-parse", "HEAD")).toBe(f.rows[1].base_commit);
      expect(git(second.dir, "status", "--porcelain")).toBe("");
    } finally {
      await second.remove();
    }
  });
});
