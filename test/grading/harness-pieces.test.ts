import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { getTestDirectives } from "../../src/grading/patch-files.js";
import { swebenchRows } from "../support/data.js";

const lite = swebenchRows("swe-bench-lite.test.jsonl");
const verified = swebenchRows("swe-bench-verified.partial.jsonl");

describe("test directives and touched files", () => {
  it("equal Python's re.findall over every Lite and Verified test patch (then the harness's filters)", () => {
    const rows = [...lite, ...verified];
    const script = [
      "import json, re, sys",
      "rows = json.load(sys.stdin)",
      "print(json.dumps([re.findall(r'diff --git a/.* b/(.*)', r) for r in rows]))",
    ].join("\n");
    const found = JSON.parse(
      execFileSync("/usr/bin/python3", ["-c", script], {
        input: JSON.stringify(rows.map((r) => r.test_patch)),
        encoding: "utf8",
      }),
    ) as string[][];
    const exts = [".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml"];
    rows.forEach((row, i) => {
      let expected = found[i].filter((d) => !exts.some((e) => d.endsWith(e)));
      if (row.repo === "django/django") {
        expected = expected.map((d) =>
          d
            .replace(/\.py$/, "")
            .replace(/^tests\//, "")
            .replaceAll("/", "."),
        );
      }
      expect(getTestDirectives(row.repo, row.test_patch), row.instance_id).toEqual(expected);
    });
    const django = lite.find((r) => r.instance_id === "django__django-11099");
    expect(django && getTestDirectives(django.repo, django.test_patch)).toEqual([
      "auth_tests.test_validators",
    ]);
  });
});
