import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Command } from "commander";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type EvalFlags, register, runEval } from "../../src/cli/eval.js";
import { buildCalcFixture, type CalcFixture, calcRow } from "../support/calc-fixture.js";
import { havePytest } from "../support/pytest-skips.js";

const SPECS = {
  "acme/calc": {
    log_parser: "pytest",
    // The interpreter comes from the config's environment.env (as a venv on PATH would).
    versions: { "*": { test_cmd: "$PATCHLOOP_TEST_PY -m pytest -rA -p no:cacheprovider" } },
  },
};

const PY_LAYER = "environment.env.PATCHLOOP_TEST_PY=/usr/bin/python3";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe.skipIf(!havePytest())("patchloop eval (CLI)", () => {
  let f: CalcFixture;
  let root: string;
  let dataset: string;
  let specs: string;
  const flags = (over: Partial<EvalFlags>): EvalFlags => ({
    predictions: "",
    dataset,
    split: "test",
    runId: "cli",
    workers: "2",
    environment: "local",
    reposDir: f.reposDir,
    timeout: "60",
    output: join(root, "out"),
    specs,
    harnessVersion: "4.1",
    config: [PY_LAYER],
    envCheckCache: join(root, "env-checks"),
    ...over,
  });

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-eval-cli-"));
    f = buildCalcFixture(root);
    dataset = join(root, "rows.jsonl");
    writeFileSync(dataset, `${[1, 2, 3].map((n) => JSON.stringify(calcRow(f, n))).join("\n")}\n`);
    specs = join(root, "specs.json");
    writeFileSync(specs, JSON.stringify(SPECS));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  it("a report.json of another patch is not reused: preds.json changed (select) is graded again", async () => {
    const write = (patch: string) => {
      const file = join(root, "changing.json");
      writeFileSync(
        file,
        JSON.stringify([{ instance_id: "acme__calc-1", model_name_or_path: "m", model_patch: patch }]),
      );
      return file;
    };
    const summary = () => JSON.parse(readFileSync(join(root, "out", "changing", "m.changing.json"), "utf8"));
    expect(await runEval(flags({ predictions: write(f.wrongPatch), runId: "changing" }), capture().io)).toBe(
      0,
    );
    expect(summary().resolved_ids).toEqual([]);
    // the same run id, now the right patch: graded again, not the earlier verdict
    expect(await runEval(flags({ predictions: write(f.goldPatch), runId: "changing" }), capture().io)).toBe(
      0,
    );
    expect(summary().resolved_ids).toEqual(["acme__calc-1"]);
    // the same patch again: the report.json is reused (not written again)
    const reportPath = join(root, "out", "changing", "acme__calc-1", "report.json");
    const written = statSync(reportPath).mtimeMs;
    expect(await runEval(flags({ predictions: write(f.goldPatch), runId: "changing" }), capture().io)).toBe(
      0,
    );
    expect(summary().resolved_ids).toEqual(["acme__calc-1"]);
    expect(statSync(reportPath).mtimeMs).toBe(written);
  });

  it("parses its flags through commander, grades with --specs, prints the report and flips", async () => {
    const first = join(root, "first.json");
    writeFileSync(
      first,
      JSON.stringify([{ instance_id: "acme__calc-1", model_name_or_path: "m", model_patch: f.wrongPatch }]),
    );
    const c1 = capture();
    expect(await runEval(flags({ predictions: first, runId: "before" }), c1.io)).toBe(0);
    const before = join(root, "out", "before", "m.before.json");
    expect(JSON.parse(readFileSync(before, "utf8")).resolved_ids).toEqual([]);

    const preds = join(root, "preds.jsonl");
    writeFileSync(
      preds,
      [
        { instance_id: "acme__calc-1", model_name_or_path: "m", model_patch: f.goldPatch },
        { instance_id: "acme__calc-2", model_name_or_path: "m", model_patch: f.wrongPatch },
      ]
        .map((p) => JSON.stringify(p))
        .join("\n"),
    );
    const written: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((t) => {
      written.push(String(t));
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const program = new Command().exitOverride();
    register(program);
    await program.parseAsync(
      [
        "eval",
        "--predictions",
        preds,
        "--dataset",
        dataset,
        "--run-id",
        "after",
        "--environment",
        "local",
      ].concat([
        "--repos-dir",
        f.reposDir,
        "-o",
        join(root, "out"),
        "--specs",
        specs,
        "--compare",
        before,
        "-w",
        "2",
        "-c",
        PY_LAYER,
        "--env-check-cache",
        join(root, "env-checks"),
      ]),
      { from: "user" },
    );
    expect(process.exitCode).toBe(0);
    const text = written.join("");
    expect(text).toContain(
      `Resolved 1/3 (33.3%) of the whole dataset (${dataset}, test: 3 instances)\nResolved 1/2 (50.0%) of the instances with a prediction\n`,
    );
    expect(text).toContain("Unresolved (1):\n  acme__calc-2: RESOLVED_NO\n");
    expect(text).toContain(
      `Compared with ${before} (1 instance in both runs):\n  Now resolved (1):\n    acme__calc-1\n`,
    );
    expect(text).toContain("  No longer resolved: none\n");
    expect(text).toContain(`Report: ${join(root, "out", "after", "m.after.json")}`);
  }, 60_000);

  it("--predictions gold grades each row's own patch; --instance-ids takes commas", async () => {
    const c = capture();
    expect(
      await runEval(
        flags({ predictions: "gold", runId: "gold", instanceIds: ["acme__calc-1,acme__calc-3"] }),
        c.io,
      ),
    ).toBe(0);
    expect(c.out.join("")).toContain(
      `Resolved 2/2 (100.0%) of the 2 instances named by --instance-ids (${dataset}, test)\n`,
    );
    const summary = JSON.parse(readFileSync(join(root, "out", "gold", "gold.gold.json"), "utf8"));
    expect(summary.resolved_ids).toEqual(["acme__calc-1", "acme__calc-3"]);
    expect(summary.submitted_instances).toBe(3);
  }, 60_000);

  it("a relative --python is the interpreter at that path from here, not from the work tree", async () => {
    symlinkSync("/usr/bin/python3", join(root, "py"));
    const rel = relative(process.cwd(), join(root, "py"));
    expect(rel.startsWith("/")).toBe(false);
    const c = capture();
    const code = await runEval(
      flags({ predictions: "gold", runId: "relpy", python: rel, instanceIds: ["acme__calc-1"] }),
      c.io,
    );
    expect(code, c.out.join("") + c.err.join("")).toBe(0);
    expect(c.out.join("")).toContain("Resolved 1/1 (100.0%)");
    const report = JSON.parse(
      readFileSync(join(root, "out", "relpy", "acme__calc-1", "report.json"), "utf8"),
    );
    expect(JSON.stringify(report)).toContain(join(root, "py"));
  }, 60_000);

  it("exits 1 when an instance could not be graded (timeout)", async () => {
    const preds = join(root, "hang.json");
    writeFileSync(
      preds,
      JSON.stringify({ "acme__calc-9": { model_name_or_path: "m", model_patch: f.goldPatch } }),
    );
    const hang = join(root, "hang.jsonl");
    writeFileSync(hang, `${JSON.stringify(calcRow(f, 9, { test_patch: f.hangTestPatch }))}\n`);
    const c = capture();
    expect(
      await runEval(flags({ predictions: preds, dataset: hang, runId: "hang", timeout: "3" }), c.io),
    ).toBe(1);
    expect(c.out.join("")).toContain("Timed out (1):\n  acme__calc-9: the tests timed out after 3 s\n");
    expect(c.err.join("")).toMatch(/^\[1\/1\] acme__calc-9: timeout \(\d+(\.\d)? s\)\n$/);
    // The environment check ran out of time too: graded anyway, and not cached (it runs again next time).
    expect(c.out.join("")).toContain("environment check: on (1 checked, 0 from the cache, 0 mismatched)");
    const check = JSON.parse(
      readFileSync(join(root, "out", "hang", "acme__calc-9", "env_check.json"), "utf8"),
    );
    expect(check).toMatchObject({ status: "timeout", problems: [], cached: false });
    expect(existsSync(join(root, "env-checks", "acme__calc-9"))).toBe(false);
  }, 60_000);

  it.each([
    [
      "duplicate ids",
      () => [{ instance_id: "acme__calc-1" }, { instance_id: "acme__calc-1" }],
      {},
      "duplicate predictions for acme__calc-1",
    ],
    [
      "an unknown id",
      () => [{ instance_id: "acme__calc-77", model_patch: "" }],
      {},
      "an instance not in the dataset: acme__calc-77",
    ],
    ["no --repos-dir", () => [], { reposDir: undefined }, "--environment local needs --repos-dir DIR"],
    ["a bad harness version", () => [], { harnessVersion: "4" }, "--harness-version must be 4.1 or 5"],
    [
      "a missing dataset",
      () => [],
      { dataset: "/nonexistent/rows.jsonl" },
      "dataset file not found: /nonexistent/rows.jsonl",
    ],
    [
      "an unknown --instance-ids",
      () => [],
      { instanceIds: ["acme__calc-5"] },
      "unknown instance id (not in the dataset): acme__calc-5",
    ],
    ["-w 0", () => [], { workers: "0" }, "-w needs a positive whole number"],
    [
      "a --python path that is not there",
      () => [],
      { python: "./no-such-venv/bin/python" },
      `--python ./no-such-venv/bin/python: no such file (${join(process.cwd(), "no-such-venv/bin/python")})`,
    ],
  ])("exits 2 with a clear message for %s", async (_what, preds, over, message) => {
    const path = join(root, `bad-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(preds()));
    const c = capture();
    expect(await runEval(flags({ predictions: path, runId: "bad", ...over }), c.io)).toBe(2);
    expect(c.err.join("")).toContain(message);
    expect(c.err.join("").startsWith("error: ")).toBe(true);
  });
});
