import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { compareTree, takeSnapshot, undoChanges } from "../../src/interactive/tree-snapshot.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/**
 * The record of an in-place tree and the undoing of what changed (tree-snapshot.ts), on a real
 * repository, the agent's moves made by hand: links planted where folders and files were must be
 * replaced, never written through, and every kind of change is put back as it was.
 */

function setUp() {
  const dir = tempDir("patchloop-snapshot-");
  const repo = join(dir, "repo");
  makeRepo(repo, { "pkg/mod.py": "x = 1\n", "run.sh": "echo hi\n", "README.md": "r\n" });
  chmodSync(join(repo, "run.sh"), 0o755);
  writeFileSync(join(repo, "notes.log"), "mine\n");
  writeFileSync(join(repo, ".git", "info", "exclude"), "*.log\n");
  symlinkSync("README.md", join(repo, "readme-link"));
  const outside = join(dir, "outside");
  mkdirSync(outside);
  return { dir, repo, outside, git: { gitDir: join(repo, ".git"), workTree: repo } };
}

it("folders and files swapped for links to the outside are put back without writing through the links", async () => {
  const t = setUp();
  const snap = await takeSnapshot(t.repo, t.git, join(t.dir, "copies"));
  // copied: notes.log (ignored) and run.sh (its mode differs from the commit)
  expect(snap.stats).toMatchObject({ paths: 6, copiedFiles: 2, uncopied: 0 });
  rmSync(join(t.repo, "pkg"), { recursive: true });
  symlinkSync(t.outside, join(t.repo, "pkg"));
  rmSync(join(t.repo, "notes.log"));
  symlinkSync(join(t.outside, "victim.txt"), join(t.repo, "notes.log"));
  chmodSync(join(t.repo, "run.sh"), 0o644);
  rmSync(join(t.repo, "readme-link"));
  symlinkSync("/etc/passwd", join(t.repo, "readme-link"));
  writeFileSync(join(t.repo, "README.md"), "R\n");
  const changes = await compareTree(snap);
  expect(changes.map((c) => `${c.change} ${c.kind} ${c.path}`)).toEqual([
    "changed file README.md",
    "changed link notes.log",
    "changed link pkg",
    "removed file pkg/mod.py",
    "changed link readme-link",
    "changed file run.sh",
  ]);
  const undone = await undoChanges(snap, changes);
  expect(undone.map((u) => u.done)).toEqual(Array(6).fill("restored"));
  expect(readdirSync(t.outside)).toEqual([]);
  expect(lstatSync(join(t.repo, "pkg")).isDirectory()).toBe(true);
  expect(readFileSync(join(t.repo, "pkg", "mod.py"), "utf8")).toBe("x = 1\n");
  expect(readFileSync(join(t.repo, "notes.log"), "utf8")).toBe("mine\n");
  expect(readFileSync(join(t.repo, "README.md"), "utf8")).toBe("r\n");
  expect(statSync(join(t.repo, "run.sh")).mode & 0o777).toBe(0o755);
  expect(execFileSync("readlink", [join(t.repo, "readme-link")], { encoding: "utf8" })).toBe("README.md\n");
  expect(await compareTree(snap)).toEqual([]);
});

it("a touched file with the same bytes is no change; new files and folders are removed", async () => {
  const t = setUp();
  const snap = await takeSnapshot(t.repo, t.git, join(t.dir, "copies"));
  execFileSync("touch", [join(t.repo, "README.md"), join(t.repo, "notes.log")]);
  writeFileSync(join(t.repo, "pkg", "mod.py"), "x = 1\n");
  mkdirSync(join(t.repo, "pkg", "__pycache__"));
  writeFileSync(join(t.repo, "pkg", "__pycache__", "mod.pyc"), "\0");
  const changes = await compareTree(snap);
  expect(changes.map((c) => `${c.change} ${c.kind} ${c.path}`)).toEqual([
    "added dir pkg/__pycache__",
    "added file pkg/__pycache__/mod.pyc",
  ]);
  await undoChanges(snap, changes);
  expect(existsSync(join(t.repo, "pkg", "__pycache__"))).toBe(false);
  expect(await compareTree(snap)).toEqual([]);
});

it("a file beyond the copies' limit that the agent changed is removed, and says why", async () => {
  const t = setUp();
  writeFileSync(join(t.repo, "big.log"), "b".repeat(4096));
  // room for notes.log and run.sh, not for big.log
  const snap = await takeSnapshot(t.repo, t.git, join(t.dir, "copies"), 1024);
  expect(snap.stats).toMatchObject({ copiedFiles: 2, uncopied: 1 });
  writeFileSync(join(t.repo, "big.log"), "evil");
  const changes = await compareTree(snap);
  expect(changes.map((c) => `${c.change} ${c.kind} ${c.path}`)).toEqual(["changed file big.log"]);
  expect((await undoChanges(snap, changes)).map((u) => u.done)).toEqual([
    "removed: no copy of it was kept at the start (the copies' limit, 1024 bytes, was reached), so it cannot be put back",
  ]);
  expect(existsSync(join(t.repo, "big.log"))).toBe(false);
});
