import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { SwebenchInstance } from "../src/dataset/types.js";
import { statusMapFromLog } from "../src/grading/grading.js";
import { getLogParser, type StatusMap } from "../src/grading/parsers/index.js";
import { lookupCommonSpec } from "../src/grading/spec-table-multilingual.js";
import { isTestFile, splitByFile, testLists } from "./multilingual-lists.js";

/**
 * Rebuilds SWE-bench Multilingual rows from a repository's own history, the way the harness's
 * collection makes them, for grading real instances on this machine (docs/grading.md, "On this
 * machine, without images"). Three steps:
 *
 * `node dist/bench/multilingual-rows.js rows --mirror GIT_DIR --repo owner/name --pr N=COMMIT... -o FILE`
 *   One row per pull request from its squash commit: `base_commit` its first parent, `patch` its
 *   diff outside test files and `test_patch` its diff of test files (a path containing `test`,
 *   `tests`, `e2e` or `testing`, as the harness's `extract_patches` splits a pull request's diff),
 *   `version` the pull request number, `problem_statement` the commit message (the issue text is
 *   not in the history), FAIL_TO_PASS and PASS_TO_PASS empty.
 *
 * `node dist/bench/multilingual-rows.js lists --rows FILE --eval DIR -o FILE`
 *   After `patchloop eval --predictions gold --dataset FILE ... -o DIR/..` graded those rows (with
 *   an empty `--env-check-cache`, so that the check runs and writes its log),
 *   DIR/<instance_id>/env_check_output.txt is the run at base + test patch and test_output.txt
 *   the run with the gold patch. Each log is read with the repository's parser (the harness's
 *   table): FAIL_TO_PASS is the tests passing with the gold patch that failed or were absent
 *   before, PASS_TO_PASS those passing in both (PASSED or XFAIL, as the harness counts a pass).
 *
 * `node dist/bench/multilingual-rows.js nonfix --mirror GIT_DIR --rows FILE -o PREDS.jsonl`
 *   A prediction per row that is not a fix: a comment line appended to each source file the gold
 *   patch changes (it applies, builds and runs the same tests, and should come out unresolved).
 */

/** A SWE-bench Multilingual row: the dataset's fields, none of the optional ones. */
type Row = Pick<
  SwebenchInstance,
  | "repo"
  | "instance_id"
  | "base_commit"
  | "patch"
  | "test_patch"
  | "problem_statement"
  | "hints_text"
  | "created_at"
  | "version"
  | "FAIL_TO_PASS"
  | "PASS_TO_PASS"
  | "environment_setup_commit"
>;

function args(name: string): string[] {
  const out: string[] = [];
  process.argv.forEach((a, i) => {
    if (a === name && process.argv[i + 1] !== undefined) out.push(process.argv[i + 1]);
  });
  return out;
}

function arg(name: string): string {
  const value = args(name)[0];
  if (value === undefined)
    throw new Error(`missing ${name}; usage is at the top of bench/multilingual-rows.ts`);
  return value;
}

function git(gitDir: string, ...rest: string[]): string {
  return execFileSync("git", ["--git-dir", gitDir, ...rest], { encoding: "utf8", maxBuffer: 1 << 28 });
}

function rowOf(gitDir: string, repo: string, pr: string, commit: string): Row {
  const base = git(gitDir, "rev-parse", `${commit}^`).trim();
  const diff = git(gitDir, "diff", "--no-color", "--no-renames", base, commit);
  let patch = "";
  let testPatch = "";
  for (const file of splitByFile(diff)) {
    if (isTestFile(file.path)) testPatch += file.text;
    else patch += file.text;
  }
  const [created, message] = git(gitDir, "show", "-s", "--format=%cI%x00%B", commit).split("\0");
  return {
    repo,
    instance_id: `${repo.replace("/", "__")}-${pr}`,
    base_commit: base,
    patch,
    test_patch: testPatch,
    problem_statement: message.trim(),
    hints_text: "",
    created_at: new Date(created).toISOString().replace(".000Z", "Z"),
    version: pr,
    FAIL_TO_PASS: "[]",
    PASS_TO_PASS: "[]",
    environment_setup_commit: base,
  };
}

/**
 * The status map of one log. Before the fix a log may have no results (every test new, or a test
 * file that cannot load without a dependency the fix adds); with it, it must have some.
 */
function statusesOf(row: Row, file: string, mayBeEmpty: boolean): StatusMap {
  const spec = lookupCommonSpec(row.repo, row.version);
  if (!spec) throw new Error(`${row.instance_id}: no harness spec for ${row.repo} version ${row.version}`);
  const parse = getLogParser(spec.log_parser);
  const got = statusMapFromLog(
    readFileSync(file, "utf8"),
    (t) => parse(t, "4.1", { instanceId: row.instance_id, version: row.version }),
    "4.1",
  );
  if (!got.found) throw new Error(`${file}: no test output between the markers (${got.reason})`);
  if (got.map.size === 0 && !mayBeEmpty)
    throw new Error(`${file}: no test results (${got.reason ?? "empty"})`);
  return got.map;
}

/** The comment line a non-fix appends to a file, by its extension (files of other kinds are left alone). */
const COMMENTS: [RegExp, string][] = [
  [/\.[cm]?[jt]sx?$/, "// not a fix"],
  [/\.md$/, "<!-- not a fix -->"],
];

/**
 * A comment line appended to each file the gold patch changes that exists at the base commit and
 * takes one (JavaScript, TypeScript, Markdown; not package.json).
 */
function nonFixPatch(gitDir: string, row: Row): string {
  const atBase = new Set(git(gitDir, "ls-tree", "-r", "--name-only", row.base_commit).split("\n"));
  return splitByFile(row.patch)
    .flatMap(({ path }) => {
      const comment = COMMENTS.find(([re]) => re.test(path))?.[1];
      if (!comment || !atBase.has(path)) return [];
      const before = git(gitDir, "show", `${row.base_commit}:${path}`);
      const after = `${before.endsWith("\n") || before === "" ? before : `${before}\n`}${comment}\n`;
      const body = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, {
        context: 3,
      });
      // Its first line is a row of `=`; git's header goes there instead.
      return [`diff --git a/${path} b/${path}\n${body.split("\n").slice(1).join("\n")}`];
    })
    .join("");
}

function readRows(file: string): Row[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Row);
}

function main(): void {
  const step = process.argv[2];
  const out = arg("-o");
  let rows: Row[];
  if (step === "rows") {
    const gitDir = arg("--mirror");
    const repo = arg("--repo");
    rows = args("--pr").map((p) => {
      const [pr, commit] = p.split("=");
      if (!pr || !commit) throw new Error(`--pr takes NUMBER=COMMIT, got ${JSON.stringify(p)}`);
      return rowOf(gitDir, repo, pr, commit);
    });
  } else if (step === "lists") {
    const evalDir = arg("--eval");
    rows = [];
    for (const row of readRows(arg("--rows"))) {
      const dir = join(evalDir, row.instance_id);
      const lists = testLists(
        statusesOf(row, join(dir, "env_check_output.txt"), true),
        statusesOf(row, join(dir, "test_output.txt"), false),
      );
      if (lists.failToPass.length === 0) {
        process.stderr.write(`${row.instance_id}: no FAIL_TO_PASS test (not an instance here); left out\n`);
        continue;
      }
      row.FAIL_TO_PASS = JSON.stringify(lists.failToPass);
      row.PASS_TO_PASS = JSON.stringify(lists.passToPass);
      rows.push(row);
      process.stdout.write(
        `${row.instance_id}: ${lists.failToPass.length} FAIL_TO_PASS, ${lists.passToPass.length} PASS_TO_PASS\n`,
      );
    }
  } else if (step === "nonfix") {
    const gitDir = arg("--mirror");
    const preds = readRows(arg("--rows")).map((row) => ({
      instance_id: row.instance_id,
      model_name_or_path: "nonfix",
      model_patch: nonFixPatch(gitDir, row),
    }));
    writeFileSync(out, preds.map((p) => `${JSON.stringify(p)}\n`).join(""));
    return;
  } else {
    throw new Error(`first argument: rows, lists or nonfix, got ${JSON.stringify(step)}`);
  }
  writeFileSync(out, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
}

main();
