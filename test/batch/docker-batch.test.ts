import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { textOf } from "../../src/agent/protocols/types.js";
import { runBatch } from "../../src/batch/run-batch.js";
import { instanceImageName } from "../../src/dataset/images.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { describeWithEngine } from "../support/engines.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";
import { git } from "../support/git-repo.js";
import { buildInstanceImage } from "../support/instance-image.js";
import { tempDir } from "../support/tmp.js";
import { bash, localSwebenchConfig, readJson } from "./helpers.js";

const docker = (...args: string[]) =>
  execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** The fix and a submission made with `diff` (the base image has no git). */
function scriptFor(row: SwebenchInstance): ScriptedModel {
  const n = row.instance_id.split("-").pop();
  const file = `pkg${row.repo.slice(-1)}/op${n}.py`;
  return new ScriptedModel([
    bash(`cp ${file} /tmp/orig.py && sed -i 's/ - b  # BUG$/ + b/' ${file} && pwd`),
    bash(
      `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && (diff -u --label a/${file} --label b/${file} /tmp/orig.py ${file} || true)`,
    ),
  ]);
}

describeWithEngine("docker", "batch in docker: one container per instance from its image", () => {
  let f: FixtureInstances;
  let root: string;
  const tags: string[] = [];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-batch-docker-"));
    f = buildFixtureInstances(root, { count: 2, repos: 2 });
    // Instance 1 uses the SWE-bench image name; instance 2 names its own image in the row.
    tags.push(
      instanceImageName(f.rows[0].instance_id),
      `patchloop-test/batch-${f.rows[1].instance_id}:latest`,
    );
    f.rows[1] = { ...f.rows[1], image_name: tags[1] };
    for (const [i, row] of f.rows.entries()) buildInstanceImage(f, row, tags[i], root);
  });
  afterAll(() => {
    for (const t of tags) {
      try {
        docker("rmi", "-f", t);
      } catch {
        // already gone
      }
    }
    rmSync(root, { recursive: true, force: true });
  });

  it("runs each instance in /testbed of its image, writes the patches, removes the containers", async () => {
    const out = join(tempDir(), "run");
    const models = new Map<string, ScriptedModel>();
    const runId = `batch-docker-test-${process.pid}`;
    const result = await runBatch({
      config: localSwebenchConfig(["environment.environment_class=docker"]),
      instances: f.rows,
      outputDir: out,
      workers: 2,
      runId,
      modelFor: (row) => {
        const m = scriptFor(row);
        models.set(row.instance_id, m);
        return m;
      },
    });
    for (const m of models.values()) m.assertAllUsed();
    expect(result.statuses).toEqual({
      [f.rows[0].instance_id]: "Submitted",
      [f.rows[1].instance_id]: "Submitted",
    });
    for (const row of f.rows) {
      const calls = models.get(row.instance_id)?.calls ?? [];
      expect(textOf(calls[0].messages[1])).toContain("is checked out at /testbed at the commit");
      expect(textOf(calls[1].messages[3])).toContain("<output>\n/testbed\n\n</output>");
      // The patch applies on the host clone at the base commit and fixes the bug.
      const patch = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"))[
        row.instance_id
      ].model_patch;
      const check = join(tempDir(), "check");
      execFileSync("git", ["clone", "-q", join(f.reposDir, row.repo.replace("/", "__")), check]);
      git(check, "checkout", "-q", row.base_commit);
      writeFileSync(join(check, "..", "p.diff"), patch);
      git(check, "apply", join(check, "..", "p.diff"));
      const n = row.instance_id.split("-").pop();
      expect(readFileSync(join(check, `pkg${row.repo.slice(-1)}`, `op${n}.py`), "utf8")).toContain(
        "    return a + b\n",
      );
    }
    expect(
      docker("ps", "-a", "--filter", `label=patchloop.run=${runId}`, "--format", "{{.Names}}").trim(),
    ).toBe("");
  });

  it("an image that is not there is an EnvironmentError naming it", async () => {
    const out = join(tempDir(), "run");
    const row = {
      ...f.rows[0],
      instance_id: "acme__lib0-404",
      image_name: "patchloop-test/no-such-image:never",
    };
    const result = await runBatch({
      config: localSwebenchConfig(["environment.environment_class=docker", "environment.pull_timeout=20"]),
      instances: [row],
      outputDir: out,
      modelFor: () => new ScriptedModel([]),
    });
    expect(result.statuses).toEqual({ "acme__lib0-404": "EnvironmentError" });
    const traj = readJson<{ info: { exit_message: string } }>(
      join(out, row.instance_id, `${row.instance_id}.traj.json`),
    );
    expect(traj.info.exit_message).toMatch(
      /^could not open the environment: .*patchloop-test\/no-such-image:never/,
    );
  });
});
