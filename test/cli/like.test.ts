import { mkdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/version.js";
import { localBatchArgs, useFixtureBatch } from "../batch/helpers.js";
import { runPatchloop } from "../support/cli.js";
import { stepwiseReply } from "../support/fixture-instances.js";

/**
 * Issue 42, "Runs that can be reproduced": run.json records what reproducing a batch needs, and
 * `patchloop swebench --like DIR -o NEW` runs it again from another folder with the recorded
 * command line (relative paths read from where it was given), saying what differs first.
 */
/** `patchloop ARGS` run from `cwd`. */
const patchloop = (args: string[], cwd: string) => runPatchloop(args, {}, cwd);

describe("swebench --like", () => {
  const b = useFixtureBatch(
    "patchloop-like-",
    { count: 2, repos: 1 },
    { record: false, defaultBehaviour: stepwiseReply() },
    false,
  );

  it("records what reproducing needs, and runs again from elsewhere with the same preds.json, byte for byte", async () => {
    // The first run is given relative paths, from the fixture's folder.
    const first = await patchloop(
      [
        "swebench",
        ...localBatchArgs(relative(b.root, b.f.datasetPath), b.server.url, relative(b.root, b.f.reposDir)),
        "-c",
        "agent.step_limit=20",
        "-o",
        "first",
      ],
      b.root,
    );
    expect(first.code, first.stderr).toBe(0);
    const runA = join(b.root, "first");
    const info = JSON.parse(readFileSync(join(runA, "run.json"), "utf8")).info;
    expect(info.cwd).toBe(b.root);
    expect(info.reproduce.patchloop.version).toBe(VERSION);
    expect(info.reproduce.config_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(info.reproduce.model).toEqual({
      name: "openai/fake",
      served: [{ id: "fake", owned_by: "fake" }],
      server_version: null,
      gguf: null,
    });
    expect(info.reproduce.dataset).toMatchObject({
      subset: relative(b.root, b.f.datasetPath),
      split: "test",
      selected: 2,
    });
    expect(info.reproduce.dataset.selected_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(info.reproduce.environment).toEqual({ class: "local", images: null });

    // Again, from another folder, with the recorded command line.
    const elsewhere = join(b.root, "elsewhere");
    mkdirSync(elsewhere);
    const second = await patchloop(["swebench", "--like", runA, "-o", "second"], elsewhere);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `--like ${runA}: the same patchloop, config, model server, dataset rows and environment as recorded\n`,
    );
    expect(readFileSync(join(elsewhere, "second", "preds.json"), "utf8")).toBe(
      readFileSync(join(runA, "preds.json"), "utf8"),
    );
    const again = JSON.parse(readFileSync(join(elsewhere, "second", "run.json"), "utf8"));
    expect(again.config.agent.step_limit).toBe(20);
    expect(again.info.reproduce.config_sha256).toBe(info.reproduce.config_sha256);

    // A flag given now wins, and the difference is said before the run starts.
    const third = await patchloop(
      ["swebench", "--like", runA, "-o", "third", "-c", "agent.step_limit=30", "--slice", "0:1"],
      elsewhere,
    );
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain(
      `--like ${runA}: what differs from the recorded run:\n  resolved config (sha256): `,
    );
    expect(third.stderr).toMatch(/\n {2}selected rows \(sha256\): [0-9a-f]{64} then, [0-9a-f]{64} now\n/);
    const thirdRun = JSON.parse(readFileSync(join(elsewhere, "third", "run.json"), "utf8"));
    expect(thirdRun.config.agent.step_limit).toBe(30);
    expect(Object.keys(thirdRun.instances)).toEqual([b.f.rows[0].instance_id]);
  }, 240_000);

  it("a folder that is not a run is an error saying what --like takes", async () => {
    const r = await patchloop(["swebench", "--like", b.root, "-o", "x"], b.root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `--like ${b.root}: no run.json there; give the folder of a patchloop swebench run`,
    );
  });
});
