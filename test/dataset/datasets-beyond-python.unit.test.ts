import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { imageForRow, imageTemplateProblem, instanceImageName, workdirOf } from "../../src/dataset/images.js";
import { DatasetError, HUB_DATASETS, loadDataset, parseTestList } from "../../src/dataset/load.js";
import { parsePyStringList } from "../../src/dataset/py-list.js";
import { makeEvalScript } from "../../src/grading/eval-script.js";
import {
  gradeLive,
  liveEvalScript,
  livePytestStatuses,
  readLiveParserOutput,
} from "../../src/grading/live.js";
import { parsePredictions } from "../../src/grading/predictions.js";
import { envExports, gradeProOutput, loadProScripts, proEntryScript } from "../../src/grading/pro.js";
import { resolveTestSpec } from "../../src/grading/test-spec.js";
import { convertPreds, writePredsAs } from "../../src/run-folder/preds-format.js";
import { FIXTURES } from "../support/data.js";

const DATA = join(FIXTURES, "datasets");
const tmp = mkdtempSync(join(tmpdir(), "patchloop-datasets-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const load = (file: string) => loadDataset({ subset: join(DATA, file) });
const PRO_ID =
  "instance_NodeBB__NodeBB-7b8bffd763e2155cf88f3ebc258fa68ebe18188d-vf2cf3cbd463b7ad942381f1c6d077626485a1e9e";

describe("the datasets behind --subset", () => {
  it("names each harness's Hugging Face dataset", () => {
    expect(HUB_DATASETS).toMatchObject({
      multilingual: "SWE-bench/SWE-bench_Multilingual",
      pro: "ScaleAI/SWE-bench_Pro",
      live: "SWE-bench-Live/SWE-bench-Live",
      "live-multilang": "SWE-bench-Live/MultiLang",
      rebench: "nebius/SWE-rebench",
      gym: "SWE-Gym/SWE-Gym",
    });
  });

  it("gym has only a train split, said before any download", async () => {
    await expect(loadDataset({ subset: "gym", split: "test" })).rejects.toThrow(
      'unknown split "test" for gym (SWE-Gym/SWE-Gym): its only split is train.',
    );
  });
});

describe("SWE-bench Pro rows", () => {
  it("reads Pro's columns: Python list literals decoded, the image tag, the workdir /app", async () => {
    const [row] = await load("pro.jsonl");
    expect(row.instance_id).toBe(PRO_ID);
    expect(parseTestList(row, "FAIL_TO_PASS")).toHaveLength(12);
    expect(parseTestList(row, "FAIL_TO_PASS")[0]).toBe(
      "test/tokens.js | API tokens .list() should list available tokens",
    );
    expect(parseTestList(row, "PASS_TO_PASS")).toEqual([]);
    expect(row.pro).toEqual({
      before_repo_set_cmd: expect.stringContaining(
        "git checkout 7b8bffd763e2155cf88f3ebc258fa68ebe18188d -- test/tokens.js",
      ),
      selected_test_files: ["test/tokens.js"],
      dockerhub_tag:
        "nodebb.nodebb-NodeBB__NodeBB-7b8bffd763e2155cf88f3ebc258fa68ebe18188d-vf2cf3cbd463b7ad942381f1c6d077626485a1e9e",
      language: "js",
    });
    expect(workdirOf(row)).toBe("/app");
    expect(imageForRow(row)).toBe(
      "docker.io/jefzda/sweap-images:nodebb.nodebb-NodeBB__NodeBB-7b8bffd763e2155cf88f3ebc258fa68ebe18188d-vf2cf3cbd463b7ad942381f1c6d077626485a1e9e",
    );
    // The row's own fields are kept as they are.
    expect(row.fail_to_pass).toMatch(/^\['test\/tokens\.js \| API tokens/);
  });

  it("a row whose list column is not a Python list is an error naming the row, the field and the form", async () => {
    const [raw] = readFileSync(join(DATA, "pro.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const file = join(tmp, "bad-pro.jsonl");
    writeFileSync(file, `${JSON.stringify({ ...raw, fail_to_pass: "['a', 'b'" })}\n`);
    await expect(loadDataset({ subset: file })).rejects.toThrow(
      `${file}: line 1 (${PRO_ID}): fail_to_pass is not a list of strings (expected , or ] at character 10); got "['a', 'b'"`,
    );
    writeFileSync(file, `${JSON.stringify({ ...raw, dockerhub_tag: undefined })}\n`);
    await expect(loadDataset({ subset: file })).rejects.toThrow(
      new RegExp(
        `line 1 \\(${PRO_ID}\\) is not a SWE-bench Pro row: dockerhub_tag: .*Fields of this layout: instance_id, repo`,
      ),
    );
  });

  it("reads Pro's sample CSV (quoted fields with commas, quotes and line breaks) as its .jsonl", async () => {
    const [raw] = readFileSync(join(DATA, "pro.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const names = Object.keys(raw);
    const cell = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
    const file = join(tmp, "pro.csv");
    writeFileSync(file, `${names.join(",")}\r\n${names.map((n) => cell(String(raw[n]))).join(",")}\r\n`);
    const [fromCsv] = await loadDataset({ subset: file });
    const [fromJsonl] = await load("pro.jsonl");
    expect(fromCsv).toEqual(fromJsonl);
    writeFileSync(file, `${names.join(",")}\nonly,three,fields\n`);
    await expect(loadDataset({ subset: file })).rejects.toThrow(
      `${file}: the record on line 2 has 3 fields, the header ${names.length}.`,
    );
  });

  it("Python list literals: quotes, escapes, trailing commas, errors", () => {
    expect(parsePyStringList(`['a', "b's", 'c\\'d', 'e\\\\f', 'x\\u00e9',]`)).toEqual({
      ok: true,
      items: ["a", "b's", "c'd", "e\\f", "xé"],
    });
    expect(parsePyStringList("[]")).toEqual({ ok: true, items: [] });
    expect(parsePyStringList("['a'] x")).toEqual({ ok: false, error: "text after the list at character 7" });
    expect(parsePyStringList("[1]")).toEqual({ ok: false, error: "expected a quoted string at character 2" });
  });

  it("the entry script is the evaluator's, with the Dockerfiles' ENV lines and the last set-up line", async () => {
    const [row] = await load("pro.jsonl");
    const scripts = await loadProScripts(join(DATA, "pro-scripts"), PRO_ID);
    const script = proEntryScript(row, scripts);
    expect(envExports(scripts.baseDockerfile, scripts.instanceDockerfile)).toHaveLength(4);
    expect(script).toContain(
      "\n# apply patch\ncd /app\ngit reset --hard e0149462b3f4e7c843d89701ad9edd2e744d7593\ngit checkout e0149462b3f4e7c843d89701ad9edd2e744d7593\ngit apply -v /workspace/patch.diff\ngit checkout 7b8bffd763e2155cf88f3ebc258fa68ebe18188d -- test/tokens.js\n",
    );
    expect(script).toContain(
      "bash /workspace/run_script.sh test/tokens.js > /workspace/stdout.log 2> /workspace/stderr.log\n# run parsing script\npython /workspace/parser.py /workspace/stdout.log /workspace/stderr.log /workspace/output.json\n",
    );
    expect(script.startsWith("\nexport SETUP='{ ")).toBe(true);
    await expect(loadProScripts(join(DATA, "pro-scripts"), "instance_other")).rejects.toThrow(
      /instance instance_other: SWE-bench Pro's run_scripts\/instance_other\/run_script.sh cannot be read .*--pro-scripts must name a checkout of scaleapi\/SWE-bench_Pro-os/,
    );
  });

  it("grades output.json as the evaluator does; no output is an infrastructure failure, not unresolved", async () => {
    const [row] = await load("pro.jsonl");
    const names = parseTestList(row, "FAIL_TO_PASS");
    const all = JSON.stringify({ tests: names.map((name) => ({ name, status: "PASSED" })) });
    expect(gradeProOutput(row, all)).toMatchObject({ graded: true, resolved: true, missing: [] });
    const one = JSON.stringify({
      tests: names.map((name, i) => ({ name, status: i === 3 ? "FAILED" : "PASSED" })),
    });
    expect(gradeProOutput(row, one)).toMatchObject({ graded: true, resolved: false, missing: [names[3]] });
    expect(gradeProOutput(row, undefined)).toEqual({
      graded: false,
      reason: "the parser wrote no output.json (see stdout.log and stderr.log)",
    });
    expect(gradeProOutput(row, "{}")).toEqual({ graded: false, reason: 'output.json has no "tests" list' });
  });
});

describe("SWE-bench-Live rows", () => {
  it("reads the commands, the parser and the image; the parser's source leaves log_parser", async () => {
    const [py, go] = await load("live.jsonl");
    expect(py.live).toEqual({
      rebuild_cmds: [],
      test_cmds: ["pytest -rA tests/test_calc.py"],
      print_cmds: [],
      parser: "pytest",
      platform: "linux",
    });
    expect(go.live?.parser).toMatch(/^import re\ndef parser\(log\):/);
    expect(go.log_parser).toBeUndefined();
    expect(imageForRow(go)).toBe("starryzhang/sweb.eval.x86_64.acme_1776_gocalc-7");
    expect(parseTestList(go, "FAIL_TO_PASS")).toEqual(["TestOverflow"]);
  });

  it("a row without test commands is an error naming the field", async () => {
    const file = join(tmp, "bad-live.jsonl");
    const [raw] = readFileSync(join(DATA, "live.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    writeFileSync(file, `${JSON.stringify({ ...raw, test_cmds: [] })}\n`);
    await expect(loadDataset({ subset: file })).rejects.toThrow(
      /line 1 \(acme__calc-12\) is not a SWE-bench-Live row: test_cmds: /,
    );
  });

  it("the sequence: patches, rebuild, tests, print between the markers; no print commands: run_test.sh", async () => {
    const [py, go] = await load("live.jsonl");
    const goScript = liveEvalScript(go, { repoDir: "/testbed", patchFile: "/tmp/patch.diff" });
    expect(goScript).toContain(
      "git apply -v /tmp/patch.diff\ncd /testbed\ngo build ./...\ngo test -v ./... > /tmp/test.log 2>&1\nset +x\necho '>>>>> Start Test Output'\ncat /tmp/test.log\necho '>>>>> End Test Output'\n",
    );
    const pyScript = liveEvalScript(py, { repoDir: "/testbed", patchFile: "/tmp/patch.diff" });
    expect(pyScript).toContain(
      "cat > run_test.sh <<'CC_PROMPT'\npytest -rA tests/test_calc.py\nCC_PROMPT\nbash run_test.sh > testlog.out 2>&1\nset +x\necho '>>>>> Start Test Output'\ncat testlog.out\n",
    );
  });

  it("grades as Live: an absent test is neither success nor failure; pytest statuses folded", async () => {
    const [py] = await load("live.jsonl");
    const log = "PASSED tests/test_calc.py::test_add\nFAILED tests/test_calc.py::test_sub - assert 1 == 2\n";
    expect(gradeLive(py, livePytestStatuses(log))).toEqual({
      resolved: false,
      FAIL_TO_PASS: { success: [], failure: ["tests/test_calc.py::test_sub"] },
      PASS_TO_PASS: { success: ["tests/test_calc.py::test_add"], failure: [] },
    });
    expect(gradeLive(py, livePytestStatuses("PASSED tests/test_calc.py::test_sub\n")).resolved).toBe(true);
    const parsed = readLiveParserOutput(
      'x\nPATCHLOOP_LIVE_PARSER_BEGIN\n{"TestOverflow": "PASS", "TestAdd": "failed"}\nPATCHLOOP_LIVE_PARSER_END\n',
    );
    expect(parsed).toEqual({
      ok: true,
      map: new Map([
        ["TestOverflow", "pass"],
        ["TestAdd", "fail"],
      ]),
    });
    expect(readLiveParserOutput("Traceback ...")).toEqual({
      ok: false,
      reason: "the row's parser printed no result: Traceback ...",
    });
  });
});

describe("SWE-rebench, SWE-Gym and Multilingual rows", () => {
  it("SWE-rebench: the test command and parser come from install_config, the image from docker_image", async () => {
    const [row] = await load("rebench.jsonl");
    expect(row.test_cmd).toBe("pytest --no-header -rA --tb=no -p no:cacheprovider");
    expect(row.log_parser).toBe("parse_log_pytest");
    expect(imageForRow(row)).toBe("swerebench/sweb.eval.x86_64.acme_1776_calc-20");
    const spec = resolveTestSpec(row);
    expect(spec.logParser).toBe("parse_log_pytest");
    expect(spec.testCommand).toBe("pytest --no-header -rA --tb=no -p no:cacheprovider tests/test_calc.py");
  });

  it("SWE-Gym's images: {id_s} writes __ as _s_", () => {
    expect(
      instanceImageName("Project-MONAI__MONAI-3061", {
        template: "docker.io/xingyaoww/sweb.eval.{arch}.{id_s}:latest",
      }),
    ).toBe("docker.io/xingyaoww/sweb.eval.x86_64.project-monai_s_monai-3061:latest");
    expect(imageTemplateProblem("x/{tag}")).toBeUndefined();
    expect(imageTemplateProblem("x/latest")).toBe(
      "no {id}, {instance_id}, {id_s} or {tag}: every instance would get the same image (use environment.image for that)",
    );
  });

  it("a {tag} template on a row without a tag is an error saying which rows have one", async () => {
    const [row] = await load("multilingual.jsonl");
    expect(() => imageForRow(row, { image_template: "r/{tag}" })).toThrow(
      'environment.image_template "r/{tag}" uses {tag}, but instance axios__axios-5085 has no image tag (only SWE-bench Pro rows carry one, dockerhub_tag)',
    );
  });

  it("Multilingual: the harness's table gives the test command and parser; eval.sh has the common layout", async () => {
    const [row] = await load("multilingual.jsonl");
    const spec = resolveTestSpec(row, undefined, undefined, "5");
    expect(spec).toMatchObject({
      testCommand: "npx mocha -R tap test/unit/regression/bugs.js",
      logParser: "tap",
      layout: "common",
      evalType: "pass_and_fail",
      source: "harness table (other languages)",
      directives: [],
    });
    const script = makeEvalScript({
      spec,
      baseCommit: row.base_commit,
      testPatch: row.test_patch,
      repoDir: "/testbed",
      activate: [],
      safeDirectory: true,
      install: true,
      harness: "5",
    });
    const base = row.base_commit;
    expect(script).toBe(
      `#!/bin/bash\nset -uxo pipefail\ncd /testbed\ngit config --global --add safe.directory /testbed\ncd /testbed\n` +
        `git checkout ${base} test/unit/regression/bugs.js\ngit apply --verbose --reject - <<'EOF_114329324912'\n${row.test_patch}\nEOF_114329324912\n` +
        `: '>>>>> Start Test Output'\nnpx mocha -R tap test/unit/regression/bugs.js\nSWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'\n` +
        `echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"\ngit checkout ${base} test/unit/regression/bugs.js\n`,
    );
  });

  it("a --specs test command for another language's repository gets that layout: no directives, git apply --reject", () => {
    const row = {
      repo: "acme/widgets",
      instance_id: "acme__widgets-7",
      base_commit: "e".repeat(40),
      version: "7",
      test_patch:
        "diff --git a/test/a.test.js b/test/a.test.js\n--- a/test/a.test.js\n+++ b/test/a.test.js\n@@ -1 +1 @@\n-a\n+b\n",
      FAIL_TO_PASS: "[]",
      PASS_TO_PASS: "[]",
    };
    const js = resolveTestSpec(row as never, {
      "acme/widgets": { log_parser: "jest", versions: { "*": { test_cmd: "npx jest test/a.test.js" } } },
    });
    expect([js.layout, js.directives, js.testCommand, js.source]).toEqual([
      "common",
      [],
      "npx jest test/a.test.js",
      "specs file",
    ]);
    // The same repository under a Python runner keeps the Python layout and its directives.
    const py = resolveTestSpec(row as never, {
      "acme/widgets": { log_parser: "pytest", versions: { "*": { test_cmd: "pytest -rA" } } },
    });
    expect([py.layout, py.directives]).toEqual(["python", ["test/a.test.js"]]);
  });

  it("marked is graded fail-only under both releases; eslint only under v5", () => {
    const row = (repo: string) => ({
      repo,
      instance_id: "x__y-1",
      base_commit: "e".repeat(40),
      version: "1",
      test_patch: "diff --git a/t b/t\n",
      test_cmd: "t",
      log_parser: "marked",
      FAIL_TO_PASS: "[]",
      PASS_TO_PASS: "[]",
    });
    expect(resolveTestSpec(row("markedjs/marked") as never).evalType).toBe("fail_only");
    expect(resolveTestSpec(row("eslint/eslint") as never, undefined, undefined, "4.1").evalType).toBe(
      "pass_and_fail",
    );
    expect(resolveTestSpec(row("eslint/eslint") as never, undefined, undefined, "5").evalType).toBe(
      "fail_only",
    );
  });
});

describe("predictions in other harnesses' formats", () => {
  const entries = {
    "b__b-2": { instance_id: "b__b-2", model_name_or_path: "m", model_patch: "diff b" },
    "a__a-1": { instance_id: "a__a-1", model_name_or_path: "m", model_patch: "diff a" },
  };

  it("Pro: a list of {instance_id, patch, prefix}, by id; list: the harness's list form", () => {
    expect(convertPreds(entries, "pro")).toEqual([
      { instance_id: "a__a-1", patch: "diff a", prefix: "m" },
      { instance_id: "b__b-2", patch: "diff b", prefix: "m" },
    ]);
    expect(convertPreds(entries, "list")).toEqual([entries["a__a-1"], entries["b__b-2"]]);
  });

  it("writes preds.pro.json beside preds.json, which eval reads back", async () => {
    const dir = mkdtempSync(join(tmp, "run-"));
    writeFileSync(join(dir, "preds.json"), JSON.stringify(entries));
    const path = await writePredsAs(dir, "pro");
    expect(path).toBe(join(dir, "preds.pro.json"));
    const back = parsePredictions(readFileSync(path, "utf8"), path);
    expect(back.map((p) => [p.instance_id, p.model_patch])).toEqual([
      ["a__a-1", "diff a"],
      ["b__b-2", "diff b"],
    ]);
    writeFileSync(join(dir, "preds.json"), "[]");
    await expect(writePredsAs(dir, "pro")).rejects.toThrow(
      `cannot convert ${join(dir, "preds.json")}: it is not an object keyed by instance id`,
    );
  });
});

describe("errors for rows that fit no layout", () => {
  it("a SWE-bench row with a list where a text belongs names the field", async () => {
    const file = join(tmp, "bad.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ instance_id: "a__b-1", repo: "a/b", base_commit: "c", patch: ["x"] })}\n`,
    );
    await expect(loadDataset({ subset: file })).rejects.toThrow(DatasetError);
    await expect(loadDataset({ subset: file })).rejects.toThrow("patch must be a string");
  });
});
