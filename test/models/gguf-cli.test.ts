import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  writeGarbageHeaderGguf,
  writeHugeCountGguf,
  writeShortHeaderGguf,
  writeTruncatedGguf,
} from "../../src/testing/gguf-damaged.js";
import { writeTinyModel } from "../../src/testing/gguf-tiny-model.js";
import { startPatchloop } from "../support/cli.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";
import { describeWithGguf } from "../support/gguf-runtime.js";
import { git, makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/**
 * Damaged GGUF files through the CLI as a person meets them (issue 43; issue 41, item 15): each
 * ends `patchloop run` and `patchloop swebench` within 30 s with one line naming the file, and no
 * worktree is left in the person's repository; a SIGTERM while a model loads ends the run.
 */

const DAMAGED = {
  "garbage header": writeGarbageHeaderGguf,
  truncated: (d: string) => writeTruncatedGguf(d),
  "24 bytes, tensor count 2^64-1": writeHugeCountGguf,
  "20 bytes, a header cut short": writeShortHeaderGguf,
} as const;

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** Starts `patchloop ARGS`; `ended` resolves when it closes, or kills it after 30 s (then code is null). */
function start(
  args: string[],
  cwd: string,
): { child: ChildProcess; ended: Promise<Ended>; out: () => string } {
  const p = startPatchloop(args, { cwd });
  const began = Date.now();
  const kill = setTimeout(() => p.proc.kill("SIGKILL"), 30_000);
  const ended = p.done.then(({ code }): Ended => {
    clearTimeout(kill);
    return { code, stdout: p.out(), stderr: p.err(), seconds: (Date.now() - began) / 1000 };
  });
  return { child: p.proc, ended, out: () => `${p.out()}\n${p.err()}` };
}

const mkdirOf = (d: string) => {
  mkdirSync(d, { recursive: true });
  return d;
};

/** The worktrees git lists for `repo` (its own checkout first) and its branches. */
const worktrees = (repo: string) =>
  git(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length;
const branches = (repo: string) => git(repo, "branch", "--format=%(refname:short)").trim().split("\n");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "patchloop-gguf-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `patchloop run` on the calc repository at `repo` with the GGUF model file `model`, local, `-o out`. */
const calcRunArgs = (repo: string, model: string, out: string) => [
  ...["run", "--repo", repo, "--task", "add() subtracts", "-m", `gguf:${model}`],
  ...["--environment", "local", "-o", out],
];

describe("patchloop run with a damaged GGUF file", () => {
  for (const [name, write] of Object.entries(DAMAGED)) {
    it(`ends within 30 s with one line naming the file, and leaves no worktree (${name})`, async () => {
      const here = join(dir, name.replace(/\W+/g, "-"));
      const repo = join(here, "calc");
      makeRepo(repo, { "calc.py": "def add(a, b):\n    return a - b\n" });
      const model = write(here);
      const out = join(here, "out");
      const run = start(calcRunArgs(repo, model, out), here);
      const r = await run.ended;
      expect(r.code, run.out()).toBe(2);
      expect(r.seconds).toBeLessThan(30);
      const lines = r.stderr.split("\n").filter((l) => l !== "");
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^error: ${model}: .+; it is damaged or not a whole GGUF model: `));
      expect(r.stdout).toBe("");
      expect(worktrees(repo)).toBe(1);
      expect(branches(repo)).toEqual(["main"]);
      expect(existsSync(out)).toBe(false);
    });
  }

  it("names what is wrong with the 24-byte file exactly", async () => {
    const here = join(dir, "exact");
    const repo = join(here, "calc");
    makeRepo(repo, { "a.txt": "a\n" });
    const model = writeHugeCountGguf(here);
    const r = await start(
      ["run", "--repo", repo, "--task", "t", "-m", `gguf:${model}`, "--environment", "local"],
      here,
    ).ended;
    expect(r.stderr).toBe(
      `error: ${model}: tensor count 18446744073709551615 cannot fit in a 24-byte file; it is damaged or not a whole GGUF model: download it again and compare its sha256 with the model page's (docs/models.md)\n`,
    );
  });
});

describe("patchloop swebench with a damaged GGUF file", () => {
  let f: FixtureInstances;
  beforeAll(() => {
    f = buildFixtureInstances(join(dir, "batch"), { count: 1, repos: 1 });
  });

  for (const [name, write] of Object.entries(DAMAGED)) {
    it(`refuses it before any instance runs, in one line naming the file (${name})`, async () => {
      const here = join(dir, `batch-${name.replace(/\W+/g, "-")}`);
      const model = write(tempDir("patchloop-gguf-batch-"));
      const out = join(here, "run");
      const r = await start(
        [
          "swebench",
          "--subset",
          f.datasetPath,
          "-m",
          `gguf:${model}`,
          "--environment",
          "local",
          "--repos-dir",
          f.reposDir,
          "-o",
          out,
        ],
        dir,
      ).ended;
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2);
      expect(r.seconds).toBeLessThan(30);
      const lines = `${r.stdout}${r.stderr}`.split("\n").filter((l) => l !== "");
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^error: ${model}: .+; it is damaged or not a whole GGUF model: `));
      expect(existsSync(join(out, "preds.json"))).toBe(false);
    });
  }
});

describeWithGguf("a signal while the model loads", () => {
  let slow: string;
  beforeAll(() => {
    // a whole model whose two-million-string metadata array keeps node-llama-cpp's parser busy for seconds
    const padding = Array.from({ length: 2_000_000 }, () => "x");
    slow = writeTinyModel(mkdirOf(join(dir, "slow")), {
      extraMetadata: { "patchloop.padding": { type: "strings", value: padding } },
    });
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} ends patchloop run during loading, and the worktree is removed`, async () => {
      const here = join(dir, `signal-${signal}`);
      const repo = join(here, "calc");
      makeRepo(repo, { "calc.py": "def add(a, b):\n    return a - b\n" });
      const out = join(here, "out");
      const worktree = join(out, "worktree", "calc");
      const run = start(
        [
          ...calcRunArgs(repo, slow, out),
          "-c",
          "model.gguf.gpu_layers=0",
          "-c",
          "model.gguf.threads=1",
          "-c",
          "model.gguf.context_size=1024",
        ],
        here,
      );
      // the worktree is made after the file's check and before the first query, which loads the model
      for (let i = 0; i < 300 && !existsSync(worktree); i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(worktree), run.out()).toBe(true);
      await new Promise((r) => setTimeout(r, 500));
      const sent = Date.now();
      run.child.kill(signal);
      const r = await run.ended;
      const after = (Date.now() - sent) / 1000;
      expect(r.code, run.out()).toBe(1);
      expect(after, run.out()).toBeLessThan(10);
      expect(r.stderr).toContain("interrupted: saving the trajectory");
      expect(r.stdout).toContain("exit status: Interrupted");
      const traj = JSON.parse(readFileSync(join(out, "calc", "calc.traj.json"), "utf8"));
      expect(traj.info.model_stats.api_calls).toBe(0);
      expect(JSON.stringify(traj)).toContain("the call was aborted while the model loaded");
      expect(existsSync(worktree)).toBe(false);
      expect(worktrees(repo)).toBe(1);
      expect(
        existsSync(join(repo, ".git", "worktrees")) ? readdirSync(join(repo, ".git", "worktrees")) : [],
      ).toEqual([]);
    });
  }
});
