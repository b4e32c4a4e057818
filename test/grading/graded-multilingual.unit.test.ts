import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile, splitByFile, testLists } from "../../bench/multilingual-lists.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { judgeCheck } from "../../src/grading/env-check.js";
import { statusMapFromLog } from "../../src/grading/grading.js";
import { gradeTestOutput } from "../../src/grading/instance-report.js";
import { parseTestLog } from "../../src/grading/parsers/index.js";
import { resolveTestSpec } from "../../src/grading/test-spec.js";
import { FIXTURES } from "../support/data.js";

/**
 * Real JavaScript and TypeScript instances of SWE-bench Multilingual graded on the host
 * (docs/grading.md, "On this machine, without images"): the rows rebuilt from the repositories'
 * history by bench/multilingual-rows.ts, and the three logs of each instance's grading by
 * `patchloop eval --environment local` inside `unshare -rn`: the environment check (test patch,
 * no fix), the gold patch, and a non-fix (a comment line appended to the files the gold patch
 * changes). The parsers and grading rules must give on them the verdicts those runs gave.
 */

const rows = readFileSync(join(FIXTURES, "datasets", "multilingual-js.reconstructed.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as SwebenchInstance);
const logDir = join(FIXTURES, "logs-multilingual", "graded");
const log = (id: string, run: "before" | "gold" | "nonfix") =>
  readFileSync(join(logDir, id, `${run}.log`), "utf8");
const list = (text: string) => JSON.parse(text) as string[];

describe("the reconstructed Multilingual rows (test/fixtures/datasets/multilingual-js.reconstructed.jsonl)", () => {
  it("are the instances graded on this machine", () => {
    expect(rows.map((r) => r.instance_id)).toEqual([
      "immutable-js__immutable-js-2005",
      "immutable-js__immutable-js-2006",
      "vuejs__core-11870",
      "vuejs__core-11915",
      "vuejs__core-11739",
      "vuejs__core-11589",
      "vuejs__core-11899",
      "axios__axios-5892",
      "axios__axios-4738",
      "axios__axios-6539",
      "axios__axios-5085",
      "axios__axios-5316",
    ]);
  });

  it("split each pull request's diff as the harness's collection does: test files by path word", () => {
    for (const row of rows) {
      const testFiles = splitByFile(row.test_patch).map((f) => f.path);
      const fixFiles = splitByFile(row.patch).map((f) => f.path);
      expect(testFiles.length, row.instance_id).toBeGreaterThan(0);
      expect(testFiles.every(isTestFile), row.instance_id).toBe(true);
      expect(fixFiles.some(isTestFile), row.instance_id).toBe(false);
    }
    expect(splitByFile(rows[0].patch).map((f) => f.path)).toEqual(["CHANGELOG.md", "src/CollectionImpl.js"]);
  });

  it("hold the FAIL_TO_PASS and PASS_TO_PASS lists that the logs before and after the gold patch give", () => {
    for (const row of rows) {
      const spec = resolveTestSpec(row);
      const parse = (text: string) =>
        statusMapFromLog(text, (t) => parseTestLog(spec.logParser, t, { context: spec.parserContext }), "4.1")
          .map;
      const lists = testLists(parse(log(row.instance_id, "before")), parse(log(row.instance_id, "gold")));
      expect(lists.failToPass, row.instance_id).toEqual(list(row.FAIL_TO_PASS));
      expect(lists.passToPass, row.instance_id).toEqual(list(row.PASS_TO_PASS));
    }
  });

  it("name the tests that the fixes fix", () => {
    const f2p = Object.fromEntries(rows.map((r) => [r.instance_id, list(r.FAIL_TO_PASS)]));
    expect(f2p["immutable-js__immutable-js-2005"]).toEqual([
      "OrderedSet > hashCode should return the same value if the values are the same",
      "OrderedMap > hashCode should return the same value if the values are the same",
    ]);
    expect(f2p["immutable-js__immutable-js-2006"]).toEqual([
      "sliced sequence works even on filtered sequence",
    ]);
    expect(f2p["vuejs__core-11870"]).toEqual([
      "packages/runtime-core/__tests__/helpers/renderList.spec.ts > renderList > should render items in a reactive array correctly",
    ]);
    expect(f2p["vuejs__core-11915"]).toEqual([
      "packages/compiler-core/__tests__/parse.spec.ts > compiler: parse > Element > v-pre with half-open interpolation",
      "packages/compiler-core/__tests__/parse.spec.ts > compiler: parse > Element > self-closing v-pre",
    ]);
    expect(f2p["axios__axios-5316"]).toEqual([
      "supports http with nodejs FormData form-data instance (https://www.npmjs.com/package/form-data) should allow passing FormData",
      "supports http with nodejs FormData SpecCompliant FormData should allow passing FormData",
      "supports http with nodejs FormData toFormData helper should properly serialize nested objects for parsing with multer.js (express.js)",
    ]);
    expect(rows.map((r) => list(r.PASS_TO_PASS).length)).toEqual([20, 22, 7, 43, 26, 78, 25, 30, 3, 0, 0, 0]);
  });
});

describe("grading the real logs of those runs", () => {
  for (const row of rows) {
    it(`${row.instance_id}: the check passes, gold is RESOLVED_FULL, the non-fix RESOLVED_NO`, () => {
      const spec = resolveTestSpec(row);
      expect(spec.layout).toBe("common");
      const f2p = list(row.FAIL_TO_PASS);
      const p2p = list(row.PASS_TO_PASS);

      const check = judgeCheck(log(row.instance_id, "before"), spec, "4.1", undefined);
      expect(check.status).toBe("ok");
      expect(check.fail_to_pass_passing).toEqual([]);
      expect(check.pass_to_pass_failing).toEqual([]);
      expect(check.pass_to_pass_not_run).toEqual([]);

      const gold = gradeTestOutput(row.instance_id, log(row.instance_id, "gold"), spec, "4.1");
      expect(gold.resolution).toBe("RESOLVED_FULL");
      expect(gold.report[row.instance_id].tests_status?.FAIL_TO_PASS).toEqual({ success: f2p, failure: [] });
      expect(gold.report[row.instance_id].tests_status?.PASS_TO_PASS).toEqual({ success: p2p, failure: [] });

      const nonfix = gradeTestOutput(row.instance_id, log(row.instance_id, "nonfix"), spec, "4.1");
      expect(nonfix.resolution).toBe("RESOLVED_NO");
      expect(nonfix.report[row.instance_id].tests_status?.FAIL_TO_PASS).toEqual({
        success: [],
        failure: f2p,
      });
      expect(nonfix.report[row.instance_id].tests_status?.PASS_TO_PASS).toEqual({
        success: p2p,
        failure: [],
      });
    });
  }
});

describe("the environment check where every test is FAIL_TO_PASS", () => {
  const row = rows.find((r) => r.instance_id === "axios__axios-5316");
  if (!row) throw new Error("axios__axios-5316 is not in the vendored rows");
  // Without the fix the test file cannot load: it imports formdata-node, which the fix adds to package.json.
  const before = log(row.instance_id, "before");

  it("a run without results is what the harness saw too: graded, with a warning", () => {
    expect(before).toContain("Cannot find package 'formdata-node'");
    const check = judgeCheck(before, resolveTestSpec(row), "4.1", undefined);
    expect(check.status).toBe("ok");
    expect(check.results).toBe(0);
    expect(check.problems).toEqual([]);
    expect(check.drift).toBe(
      "the tests gave no results without the patch, as expected when every test is FAIL_TO_PASS " +
        "(no PASS_TO_PASS tests to check the environment with); graded",
    );
  });

  it("with PASS_TO_PASS tests that should have run, the same log is still a mismatch", () => {
    const spec = resolveTestSpec({ ...row, PASS_TO_PASS: JSON.stringify(["an existing test"]) });
    const check = judgeCheck(before, spec, "4.1", undefined);
    expect(check.status).toBe("mismatch");
    expect(check.problems).toEqual([
      "the tests gave no results without the patch (the log parser found no test lines): the run stopped " +
        "before any test (a missing test runner, an import error from a package version?); env_check_output.txt shows why",
    ]);
  });
});
