import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { VERSION } from "../../src/version.js";
import { buildFixtureInstances, type FixtureInstances, stepwiseReply } from "../support/fixture-instances.js";

/**
 * Issue 42, "Runs that can be reproduced": run.json records what reproducing a batch needs, and
 * `patchloop swebench --like DIR -o NEW` runs it again from another folder with the recorded
 * command line (relative paths read from where it was given), saying what differs first.
 */
const BIN = join(import.meta.dirname, "..", "..", "bin", "patchloop.js");

function patchloop(args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => {
      out += d;
    });
    p.stderr.on("data", (d) => {
      err += d;
    });
    p.on("close", (code) => done({ code, out, err }));
  });
}

describe("swebench --like", () => {
  let root: string;
  let f: FixtureInstances;
  let server: FakeLlmServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-like-"));
    f = buildFixtureInstances(root, { count: 2, repos: 1 });
    server = await startFakeLlmServer({ record: false, defaultBehaviour: stepwiseReply() });
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("records what reproducing needs, and runs again from elsewhere with the same preds.json, byte for byte", async () => {
    // The first run is given relative paths, from the fixture's folder.
    const first = await patchloop(
      [
        "swebench",
        "--subset",
        relative(root, f.datasetPath),
        "-m",
        "openai/fake",
        "--base-url",
        `${server.url}/v1`,
        "--environment",
        "local",
        "--repos-dir",
        relative(root, f.reposDir),
        "-c",
        "agent.step_limit=20",
        "-o",
        "first",
      ],
      root,
    );
    expect(first.code, first.err).toBe(0);
    const runA = join(root, "first");
    const info = JSON.parse(readFileSync(join(runA, "run.json"), "utf8")).info;
    expect(info.cwd).toBe(root);
    expect(info.reproduce.patchloop.version).toBe(VERSION);
    expect(info.reproduce.config_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(info.reproduce.model).toEqual({
      name: "openai/fake",
      served: [{ id: "fake", owned_by: "fake" }],
      server_version: null,
      gguf: null,
    });
    expect(info.reproduce.dataset).toMatchObject({
      subset: relative(root, f.datasetPath),
      split: "test",
      selected: 2,
    });
    expect(info.reproduce.dataset.selected_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(info.reproduce.environment).toEqual({ class: "local", images: null });

    // Again, from another folder, with the recorded command line.
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    const second = await patchloop(["swebench", "--like", runA, "-o", "second"], elsewhere);
    expect(second.code, second.err).toBe(0);
    expect(second.err).toContain(
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
    expect(third.code, third.err).toBe(0);
    expect(third.err).toContain(
      `--like ${runA}: what differs from the recorded run:\n  resolved config (sha256): `,
    );
    expect(third.err).toMatch(/\n {2}selected rows \(sha256\): [0-9a-f]{64} then, [0-9a-f]{64} now\n/);
    const thirdRun = JSON.parse(readFileSync(join(elsewhere, "third", "run.json"), "utf8"));
    expect(thirdRun.config.agent.step_limit).toBe(30);
    expect(Object.keys(thirdRun.instances)).toEqual([f.rows[0].instance_id]);
  }, 240_000);

  it("a folder that is not a run is an error saying what --like takes", async () => {
    const r = await patchloop(["swebench", "--like", root, "-o", "x"], root);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--like ${root}: no run.json there; give the folder of a patchloop swebench run`);
  });
});
