import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeEvalScript } from "../../src/grading/eval-script.js";
import { getModifiedFiles, getNewFiles } from "../../src/grading/patch-files.js";
import { lookupSpec, SPEC_TABLE } from "../../src/grading/spec-table.js";
import { resolveTestSpec } from "../../src/grading/test-spec.js";
import { SWEBENCH_DATA, swebenchRows } from "../support/data.js";

const lite = swebenchRows("swe-bench-lite.test.jsonl");
const verified = swebenchRows("swe-bench-verified.partial.jsonl");

describe("spec table", () => {
  const file = JSON.parse(readFileSync(join(SWEBENCH_DATA, "harness-specs-python.v4.1.0.json"), "utf8")) as {
    repos: Record<string, { log_parser: string; versions: Record<string, Record<string, unknown>> }>;
  };

  it("has exactly the harness's repositories and versions", () => {
    expect(Object.keys(SPEC_TABLE).sort()).toEqual(Object.keys(file.repos).sort());
    for (const [repo, entry] of Object.entries(file.repos)) {
      const ours = SPEC_TABLE[repo].groups.flatMap((g) => g.versions).sort();
      expect(ours, repo).toEqual(Object.keys(entry.versions).sort());
    }
  });

  it("gives every repo/version the harness's test_cmd, install, eval_commands and log parser", () => {
    let checked = 0;
    for (const [repo, entry] of Object.entries(file.repos)) {
      for (const [version, spec] of Object.entries(entry.versions)) {
        const ours = lookupSpec(repo, version);
        expect(ours, `${repo} ${version}`).toEqual({
          test_cmd: spec.test_cmd,
          install: spec.install,
          ...(spec.eval_commands ? { eval_commands: spec.eval_commands } : {}),
          log_parser: entry.log_parser,
        });
        checked++;
      }
    }
    expect(checked).toBe(282);
  });

  it("covers every Lite and Verified row in the vendored data", () => {
    for (const row of [...lite, ...verified])
      expect(lookupSpec(row.repo, row.version), row.instance_id).toBeDefined();
  });
});

describe("test directives and touched files", () => {
  it("reads source files like unidiff: new files, deletions, plain diffs, '-- x' lines inside hunks", () => {
    const patch = [
      "diff --git a/sql/q.sql b/sql/q.sql",
      "index 1..2 100644",
      "--- a/sql/q.sql",
      "+++ b/sql/q.sql",
      "@@ -1,2 +1,2 @@",
      "--- a removed SQL comment",
      "+-- an added one",
      " select 1;",
      "diff --git a/tests/new_test.py b/tests/new_test.py",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/tests/new_test.py",
      "@@ -0,0 +1 @@",
      "+x = 1",
      "diff --git a/old.py b/old.py",
      "deleted file mode 100644",
      "--- a/old.py",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-y = 2",
      "--- a/plain.txt\t2020-01-01",
      "+++ b/plain.txt",
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "",
    ].join("\n");
    expect(getModifiedFiles(patch)).toEqual(["sql/q.sql", "old.py", "plain.txt"]);
    expect(getNewFiles(patch)).toEqual(["tests/new_test.py"]);
  });
});

describe("eval.sh", () => {
  const row = lite.find((r) => r.instance_id === "django__django-11099");
  if (!row) throw new Error("django__django-11099 missing from the vendored Lite rows");
  const spec = resolveTestSpec(row);

  it("is the harness's script for a django 3.0 instance in its image (v4.1)", () => {
    const base = row.base_commit;
    const script = makeEvalScript({
      spec,
      baseCommit: base,
      testPatch: row.test_patch,
      repoDir: "/testbed",
      activate: ["source /opt/miniconda3/bin/activate", "conda activate testbed"],
      safeDirectory: true,
      install: true,
      harness: "4.1",
    });
    expect(script).toBe(
      [
        "#!/bin/bash",
        "set -uxo pipefail",
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        "cd /testbed",
        "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
        "export LANG=en_US.UTF-8",
        "export LANGUAGE=en_US:en",
        "export LC_ALL=en_US.UTF-8",
        "git config --global --add safe.directory /testbed",
        "cd /testbed",
        "git status",
        "git show",
        `git -c core.fileMode=false diff ${base}`,
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        "python -m pip install -e .",
        `git checkout ${base} tests/auth_tests/test_validators.py`,
        `git apply -v - <<'EOF_114329324912'\n${row.test_patch}\nEOF_114329324912`,
        ": '>>>>> Start Test Output'",
        "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 auth_tests.test_validators",
        ": '>>>>> End Test Output'",
        `git checkout ${base} tests/auth_tests/test_validators.py`,
        "",
      ].join("\n"),
    );
  });

  it("v5 removes created test files and records the exit status; local runs skip install and safe.directory", () => {
    const created = { ...spec, newFiles: ["tests/new_test.py"] };
    const script = makeEvalScript({
      spec: created,
      baseCommit: "abc",
      testPatch: "PATCH",
      repoDir: "/w/repo",
      activate: [],
      safeDirectory: false,
      install: false,
      harness: "5",
    });
    expect(script).not.toContain("safe.directory");
    expect(script).not.toContain("pip install");
    expect(script).toContain(
      [
        ": '>>>>> Start Test Output'",
        "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 auth_tests.test_validators",
        "SWEBENCH_TEST_EXIT_CODE=$?",
        ": '>>>>> End Test Output'",
        'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"',
        "git checkout abc tests/auth_tests/test_validators.py",
        "rm -f tests/new_test.py",
        "",
      ].join("\n"),
    );
  });
});
