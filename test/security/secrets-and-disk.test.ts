import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { localBatchArgs } from "../batch/helpers.js";
import { runPatchloop } from "../support/cli.js";
import { buildFixtureInstances } from "../support/fixture-instances.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

const KEY = "sk-live-7f3a9c2e5b1d4f6a8c0e";
const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached";

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const bash = (command: string) => ({
  type: "reply" as const,
  content: "next",
  toolCalls: [{ name: "bash", arguments: { command } }],
});

describe("a key the model finds stays off the console, out of preds.json and the .patch", () => {
  it("the console shows ***; a patch line holding the key is masked and reported", async () => {
    const dir = tempDir();
    const repo = join(dir, "repo");
    makeRepo(repo, { "settings.txt": `api_key = ${KEY}\n`, "app.py": "x = 1\n" });
    server = await startFakeLlmServer();
    server.enqueue(
      bash("cat settings.txt"),
      bash(`echo "leaked = '$(grep -o 'sk-[a-z0-9-]*' settings.txt)'" >> app.py && echo 'y = 2' >> app.py`),
      bash(SUBMIT),
    );
    const out = join(dir, "out");
    const r = await runPatchloop(
      ["run", "--repo", repo, "--task", "t", "-m", "openai/m", "--base-url", `${server.url}/v1`, "-o", out],
      { OPENAI_API_KEY: KEY },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("api_key = ***");
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(r.stderr).toContain(
      "WARNING: 1 line(s) of the patch held a secret value (an API key or token) and were masked as ***",
    );
    const patch = readFileSync(join(out, "repo", "repo.patch"), "utf8");
    expect(patch).toContain("+leaked = '***'");
    expect(patch).toContain("+y = 2");
    const files = readdirSync(join(out, "repo")).map((n) => readFileSync(join(out, "repo", n), "utf8"));
    for (const text of [...files, readFileSync(join(out, "preds.json"), "utf8")])
      expect(text).not.toContain(KEY);
  });
});

/** A tmpfs of `kb` KiB at a new temp folder (root only), unmounted by the returned function. */
function smallDisk(kb: number): { dir: string; unmount: () => void } {
  const dir = tempDir("patchloop-full-");
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${kb}k`, "tmpfs", dir]);
  return { dir, unmount: () => execFileSync("umount", ["-l", dir]) };
}

/** Whether this process may mount a tmpfs (root in CI). */
const canMount =
  process.getuid?.() === 0 &&
  spawnSync("sh", [
    "-c",
    "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d; s=$?; rmdir $d; exit $s",
  ]).status === 0;

const FILL = "head -c 2000000 /dev/zero | tr '\\0' x";

/** The `.tmp` files under `dir`, at any depth. */
function tempFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tempFiles(join(dir, e.name)) : e.name.endsWith(".tmp") ? [join(dir, e.name)] : [],
  );
}

describe.skipIf(!canMount)("a full disk (a 256 KiB tmpfs)", () => {
  it("run: exit 1, the message names the file, no temp file is left", async () => {
    const disk = smallDisk(256);
    try {
      const repo = join(tempDir(), "repo");
      makeRepo(repo, { "a.txt": "a\n" });
      server = await startFakeLlmServer({ defaultBehaviour: bash(FILL) });
      const out = join(disk.dir, "run");
      const r = await runPatchloop([
        "run",
        "--repo",
        repo,
        "--task",
        "t",
        "-m",
        "openai/m",
        "--base-url",
        `${server.url}/v1`,
        "-o",
        out,
        "-c",
        "agent.output_limit=200000",
        "-c",
        "agent.step_limit=20",
        "--quiet",
      ]);
      expect(r.code).toBe(1);
      // The whole file, or (past 32 KiB) the journal of steps beside it: either way named, with the reason.
      expect(r.stderr).toMatch(
        new RegExp(
          `error: cannot write ${out}/repo/repo\\.traj\\.json(\\.journal)?: no space left on the device`,
        ),
      );
      expect(tempFiles(out)).toEqual([]);
    } finally {
      disk.unmount();
    }
  });

  it("swebench: exit 1, the message names the file, no temp file is left", async () => {
    const disk = smallDisk(256);
    try {
      const f = buildFixtureInstances(tempDir(), { count: 2, repos: 1 });
      server = await startFakeLlmServer({ defaultBehaviour: bash(FILL) });
      const out = join(disk.dir, "batch");
      const r = await runPatchloop([
        "swebench",
        ...localBatchArgs(f.datasetPath, server.url, f.reposDir),
        "-o",
        out,
        "-c",
        "agent.output_limit=200000",
        "-c",
        "agent.step_limit=20",
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`error: cannot write ${out}/\\S+: no space left on the device`));
      expect(tempFiles(out)).toEqual([]);
    } finally {
      disk.unmount();
    }
  });
});
