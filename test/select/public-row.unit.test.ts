import { describe, expect, it } from "vitest";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { HIDDEN_FIELDS, publicRow } from "../../src/select/public-row.js";

describe("publicRow", () => {
  it("blanks the hidden fields without reading them and keeps every other field", () => {
    const row = {
      repo: "acme/calc",
      instance_id: "acme__calc-1",
      base_commit: "abc",
      problem_statement: "clamp is wrong",
      hints_text: "",
      created_at: "2026-12-01",
      version: "0.1",
      environment_setup_commit: "abc",
      test_cmd: "pytest",
      image_name: "img",
    } as unknown as SwebenchInstance;
    const reads: string[] = [];
    for (const key of HIDDEN_FIELDS) {
      Object.defineProperty(row, key, {
        enumerable: true,
        get() {
          reads.push(key);
          throw new Error(`read ${key}`);
        },
      });
    }
    const seen = publicRow(row);
    expect(reads).toEqual([]);
    expect(seen).toEqual({
      repo: "acme/calc",
      instance_id: "acme__calc-1",
      base_commit: "abc",
      problem_statement: "clamp is wrong",
      hints_text: "",
      created_at: "2026-12-01",
      version: "0.1",
      environment_setup_commit: "abc",
      test_cmd: "pytest",
      image_name: "img",
      FAIL_TO_PASS: "[]",
      PASS_TO_PASS: "[]",
      test_patch: "",
      patch: "",
    });
  });
});
