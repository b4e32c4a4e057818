import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseTestList } from "../../src/dataset/errors.js";
import { getEvalTestsReport, getResolutionStatus } from "../../src/grading/grading.js";
import { parseTestLog } from "../../src/grading/parsers/index.js";
import { parserForRepo } from "../../src/grading/spec-table.js";
import { SWEBENCH_DATA, swebenchRows } from "../support/data.js";

interface Expected {
  file: string;
  instance_id: string;
  repo: string;
  parser: string;
  expected_status_map: Record<string, string>;
  expected_resolution: string;
  expected_F2P: { success: string[]; failure: string[] };
  expected_P2P_failure: string[];
  P2P_success_count: number;
}

const logs = join(SWEBENCH_DATA, "harness-logs");
const expected = JSON.parse(readFileSync(join(logs, "expected.json"), "utf8")) as Expected[];
const rows = new Map(
  [...swebenchRows("swe-bench-lite.test.jsonl"), ...swebenchRows("swe-bench-verified.partial.jsonl")].map(
    (r) => [r.instance_id, r],
  ),
);

describe("real harness logs in test/fixtures/swebench/harness-logs", () => {
  it("has the twelve logs the README lists", () => {
    expect(expected).toHaveLength(12);
  });

  for (const e of expected) {
    it(`${e.file}: status map and grade equal the harness's`, () => {
      const log = readFileSync(join(logs, e.file), "utf8");
      expect(parserForRepo(e.repo)).toBe(e.parser);
      const map = parseTestLog(e.parser, log);
      expect(Object.fromEntries(map)).toEqual(e.expected_status_map);
      expect(map.size).toBe(Object.keys(e.expected_status_map).length);

      const row = rows.get(e.instance_id);
      expect(row, `${e.instance_id} in the vendored datasets`).toBeDefined();
      if (!row) return;
      const report = getEvalTestsReport(
        map,
        parseTestList(row, "FAIL_TO_PASS"),
        parseTestList(row, "PASS_TO_PASS"),
        "4.1",
      );
      expect(report.FAIL_TO_PASS).toEqual(e.expected_F2P);
      expect(report.PASS_TO_PASS.failure).toEqual(e.expected_P2P_failure);
      expect(report.PASS_TO_PASS.success).toHaveLength(e.P2P_success_count);
      expect(getResolutionStatus(report)).toBe(e.expected_resolution);
    });
  }
});
