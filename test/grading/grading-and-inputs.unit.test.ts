import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { compareSummaries } from "../../src/grading/compare.js";
import { evaluatePredictions } from "../../src/grading/evaluate.js";
import { getEvalTestsReport, getResolutionStatus, statusMapFromLog } from "../../src/grading/grading.js";
import { parseTestLog } from "../../src/grading/parsers/index.js";
import { checkPredictionIds, parsePredictions } from "../../src/grading/predictions.js";
import { evaluateInstance } from "../../src/grading/run-instance.js";
import { tempDir } from "../support/tmp.js";

const pytest = (text: string) => parseTestLog("pytest", text);
const wrap = (body: string, extra = "") =>
  `+ git apply -v -\n+ : '>>>>> Start Test Output'\n${body}\n+ : '>>>>> End Test Output'\n${extra}`;

describe("predictions", () => {
  const p = { instance_id: "a__b-1", model_name_or_path: "org/m", model_patch: "diff" };
  it("reads a .json list, a .json object keyed by id, and .jsonl", () => {
    expect(parsePredictions(JSON.stringify([p]), "x.json")).toEqual([p]);
    expect(parsePredictions(JSON.stringify({ "a__b-1": { model_patch: "diff" } }), "preds.json")).toEqual([
      { instance_id: "a__b-1", model_name_or_path: "None", model_patch: "diff" },
    ]);
    expect(
      parsePredictions(
        `${JSON.stringify(p)}\n\n${JSON.stringify({ ...p, instance_id: "a__b-2", model_patch: null })}\n`,
        "x.jsonl",
      ),
    ).toEqual([p, { ...p, instance_id: "a__b-2", model_patch: null }]);
  });
  it("explains each kind of bad input", () => {
    expect(() => parsePredictions("[]", "x.txt")).toThrow(
      'x.txt: predictions must be a .json or .jsonl file (got ".txt")',
    );
    expect(() => parsePredictions(`${JSON.stringify(p)}\n{oops\n`, "x.jsonl")).toThrow(
      "x.jsonl: line 2 is not valid JSON",
    );
    expect(() => parsePredictions(JSON.stringify([{ model_patch: "" }]), "x.json")).toThrow(
      "x.json: entry 1 has no instance_id",
    );
    expect(() => parsePredictions(JSON.stringify([p, p]), "x.json")).toThrow(
      "duplicate predictions for a__b-1",
    );
    const rows = [{ instance_id: "a__b-1" }] as SwebenchInstance[];
    expect(() => checkPredictionIds([p, { ...p, instance_id: "zz__z-9" }], rows)).toThrow(
      "1 prediction names an instance not in the dataset: zz__z-9",
    );
  });
});

describe("log markers and the harness's fallbacks", () => {
  it("any failure marker, or a missing marker, means no results", () => {
    expect(statusMapFromLog(wrap("PASSED t::a", ">>>>> Patch Apply Failed"), pytest, "4.1")).toMatchObject({
      found: false,
    });
    expect(statusMapFromLog("PASSED t::a\n+ : '>>>>> End Test Output'", pytest, "4.1")).toMatchObject({
      found: false,
      reason: "the log lacks the start or end test-output marker",
    });
  });
  it("reads only between the markers, and the whole log when that section gives nothing", () => {
    const inside = statusMapFromLog(`PASSED t::outside\n${wrap("PASSED t::inside")}`, pytest, "4.1");
    expect(Object.fromEntries(inside.map)).toEqual({ "t::inside": "PASSED" });
    const fallback = statusMapFromLog(`PASSED t::outside\n${wrap("(stderr elsewhere)")}`, pytest, "4.1");
    expect(Object.fromEntries(fallback.map)).toEqual({ "t::outside": "PASSED" });
  });
  it("v5: a failing exit status without any FAILED/ERROR test is 'not found' (fake PASSED lines)", () => {
    const log = wrap("PASSED t::a\n1 passed", "+ echo '>>>>> Test Exit Code: 1'\n>>>>> Test Exit Code: 1\n");
    expect(statusMapFromLog(log, pytest, "4.1").found).toBe(true);
    expect(statusMapFromLog(log, pytest, "5")).toMatchObject({
      found: false,
      reason: "the tests exited with 1 but no test failed (the log does not describe the run)",
    });
    expect(statusMapFromLog(wrap("ImportError: no module"), pytest, "5")).toMatchObject({ found: false });
  });
});

describe("grading", () => {
  const map = new Map([
    ["f1", "PASSED"],
    ["f2", "FAILED"],
    ["f3", "SKIPPED"],
    ["p1", "PASSED"],
    ["p2", "XFAIL"],
    ["p3", "SKIPPED"],
    ["t::x[a-b-c]", "PASSED"],
  ]);
  it("v4.1: SKIPPED is in neither list; absent, FAILED and ERROR fail", () => {
    const r = getEvalTestsReport(map, ["f1", "f2", "f3", "f4"], ["p1", "p2", "p3"], "4.1");
    expect(r.FAIL_TO_PASS).toEqual({ success: ["f1"], failure: ["f2", "f4"] });
    expect(r.PASS_TO_PASS).toEqual({ success: ["p1", "p2"], failure: [] });
    expect(getResolutionStatus(r)).toBe("RESOLVED_PARTIAL");
  });
  it("v5: SKIPPED fails F2P and passes P2P; a truncated name prefix-matches", () => {
    const r = getEvalTestsReport(map, ["f3", "t::x[a-b"], ["p3"], "5");
    expect(r.FAIL_TO_PASS).toEqual({ success: ["t::x[a-b"], failure: ["f3"] });
    expect(r.PASS_TO_PASS).toEqual({ success: ["p3"], failure: [] });
  });
  it("FULL needs every F2P and P2P; empty lists count as 1; PARTIAL needs some F2P and all P2P", () => {
    const none = { success: [], failure: [] };
    const g = (
      f2p: { success: string[]; failure: string[] },
      p2p: { success: string[]; failure: string[] },
    ) =>
      getResolutionStatus({ FAIL_TO_PASS: f2p, PASS_TO_PASS: p2p, FAIL_TO_FAIL: none, PASS_TO_FAIL: none });
    expect(g(none, none)).toBe("RESOLVED_FULL");
    expect(g({ success: ["a"], failure: ["b"] }, { success: [], failure: ["c"] })).toBe("RESOLVED_NO");
    expect(g({ success: [], failure: ["b"] }, none)).toBe("RESOLVED_NO");
  });
});

it("--compare lists the instances whose resolved state flipped, over those both runs have", () => {
  const flips = compareSummaries(
    { resolved_ids: ["a", "b"], submitted_ids: ["a", "b", "c", "d"] },
    { resolved_ids: ["c", "b", "x"], submitted_ids: ["a", "b", "c", "x"] },
  );
  expect(flips).toEqual({ nowResolved: ["a"], nowUnresolved: ["c"], common: 3 });
});

describe("evaluation without an environment", () => {
  const row = {
    repo: "acme/calc",
    instance_id: "acme__calc-1",
    base_commit: "0".repeat(40),
    test_patch: "diff --git a/t.py b/t.py\n",
    version: "0.1",
    FAIL_TO_PASS: "[]",
    PASS_TO_PASS: "[]",
    test_cmd: "pytest -rA",
    log_parser: "pytest",
  } as unknown as SwebenchInstance;
  const noEnv = async () => {
    throw new Error("no environment may be created here");
  };

  it("a model_patch that is not a string is that instance's error", async () => {
    const dir = tempDir("patchloop-eval-unit-");
    const r = await evaluateInstance(
      row,
      { instance_id: row.instance_id, model_name_or_path: "m", model_patch: 42 as unknown as string },
      {
        logDir: join(dir, "x"),
        provider: noEnv,
        timeout: 5,
        harness: "4.1",
      },
    );
    expect(r).toMatchObject({
      outcome: "error",
      error: "model_patch must be a string (a unified diff), got number",
    });
  });

  it("an aborted run starts nothing and reports every instance as not evaluated", async () => {
    const stop = new AbortController();
    stop.abort();
    const run = await evaluatePredictions({
      dataset: [row],
      predictions: [
        { instance_id: row.instance_id, model_name_or_path: "m", model_patch: "diff --git a/x b/x" },
      ],
      runId: "stopped",
      outputDir: tempDir("patchloop-eval-unit-"),
      provider: noEnv,
      signal: stop.signal,
    });
    expect(run.summary.error_ids).toEqual(["acme__calc-1"]);
    expect(run.summary.patchloop.errors["acme__calc-1"]).toBe(
      "not evaluated (the run was stopped before this instance)",
    );
  });
});
