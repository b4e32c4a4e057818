import { parseTestList } from "../dataset/errors.js";
import type { LiveFields, SwebenchInstance } from "../dataset/types.js";
import { TEST_PATCH_DELIMITER } from "./eval-script.js";
import { MARKERS } from "./grading.js";
import { parsePytest } from "./parsers/pytest.js";
import { InstanceSpecError } from "./test-spec.js";

/**
 * SWE-bench-Live's evaluation, as its `evaluation/evaluation.py` runs it: in the instance image, the
 * test patch and then the model's patch applied at /testbed (or the one git repository two levels
 * below it, for the rows whose project sits in a subfolder), the rebuild commands (joined with
 * " ; "), the test commands, and the print commands, whose output is the log the row's parser
 * reads. Rows without print commands (the Python dataset) write the test commands to run_test.sh,
 * run it into testlog.out and print that. The parser is `pytest` (the harness's parse_log_pytest,
 * statuses folded to pass / fail / skip) or the Python source of a function `parser(log)` that
 * the row carries.
 */

/**
 * Live's step into the one git repository two levels below /testbed when /testbed is not one
 * (Live writes the folder as a parameter expansion of "$g"; `dirname` is the same folder).
 */
const NESTED_REPO_CD =
  '[ -d .git ] || { g=$(find . -maxdepth 2 -mindepth 2 -type d -name .git -print -quit); [ -n "$g" ] && cd "$(dirname "$g")"; } ;';

/** What Live's parsers give per test. */
export type LiveStatus = "pass" | "fail" | "skip";

/** The row's Live fields, or an `InstanceSpecError` for a row that has none. */
export function liveFields(row: SwebenchInstance): LiveFields {
  if (!row.live) throw new InstanceSpecError(`instance ${row.instance_id} is not a SWE-bench-Live row`);
  if (row.live.platform !== "linux") {
    throw new InstanceSpecError(
      `instance ${row.instance_id} is a Windows task (platform windows): it needs a Windows container, which patchloop does not run`,
    );
  }
  return row.live;
}

/**
 * The script Live's sequence becomes: patches (from files in the container, applied with
 * `git apply`; without `patchFile`, the test patch only, for the environment check), rebuild, tests, and the print commands between the harness's start and end
 * markers, so that only their output is read.
 */
export function liveEvalScript(row: SwebenchInstance, o: { repoDir: string; patchFile?: string }): string {
  const live = liveFields(row);
  const testPatch = typeof row.test_patch === "string" ? row.test_patch : "";
  let test = live.test_cmds.join(" ; ");
  let print = live.print_cmds.join(" ; ");
  const lines = [
    "#!/bin/bash",
    "set -uxo pipefail",
    `cd ${o.repoDir}`,
    `git apply -v - <<'${TEST_PATCH_DELIMITER}'\n${testPatch}\n${TEST_PATCH_DELIMITER}`,
    NESTED_REPO_CD,
    // The environment check runs the same script without the model's patch.
    ...(o.patchFile ? [`git apply -v ${o.patchFile}`] : []),
    `cd ${o.repoDir}`,
  ];
  const rebuild = live.rebuild_cmds.join(" ; ");
  if (rebuild.trim()) lines.push(rebuild);
  if (!print.trim()) {
    lines.push(`cat > run_test.sh <<'CC_PROMPT'\n${test}\nCC_PROMPT`);
    test = "bash run_test.sh > testlog.out 2>&1";
    print = "cat testlog.out";
  }
  lines.push(test, "set +x", `echo '${MARKERS.start}'`, print, `echo '${MARKERS.end}'`);
  return `${lines.join("\n")}\n`;
}

/** Live's `default_pytest_parser`: parse_log_pytest, then any status with "pass" is pass, "skip" skip, else fail. */
export function livePytestStatuses(log: string): Map<string, LiveStatus> {
  const out = new Map<string, LiveStatus>();
  for (const [name, status] of parsePytest(log, "4.1")) {
    const s = status.toLowerCase();
    out.set(name, s.includes("pass") ? "pass" : s.includes("skip") ? "skip" : "fail");
  }
  return out;
}

/**
 * The Python program that runs a row's own parser on a log inside the container, as Live's
 * `run_parser` does (`exec` of the source, then `parser(log)`), printing the map as JSON between
 * two marker lines; a parser that raises prints its traceback instead.
 */
export function liveParserRunner(parserFile: string, logFile: string): string {
  return [
    "import json, sys, traceback",
    "ns = {}",
    "try:",
    `    exec(open(${JSON.stringify(parserFile)}, encoding="utf-8").read(), ns)`,
    `    result = ns["parser"](open(${JSON.stringify(logFile)}, encoding="utf-8", errors="replace").read())`,
    '    print("PATCHLOOP_LIVE_PARSER_BEGIN"); print(json.dumps(result or {})); print("PATCHLOOP_LIVE_PARSER_END")',
    "except Exception:",
    "    traceback.print_exc()",
    "    sys.exit(3)",
    "",
  ].join("\n");
}

const PARSER_BEGIN = "PATCHLOOP_LIVE_PARSER_BEGIN\n";
const PARSER_END = "\nPATCHLOOP_LIVE_PARSER_END";

/**
 * The text from the first begin marker to the first end marker after it (what
 * `BEGIN\n([\s\S]*?)\nEND` matched), found with indexOf: the regular expression, tried from each
 * of many begin markers without an end, was quadratic in the output's length.
 */
function parserPrinted(output: string): string | undefined {
  const begin = output.indexOf(PARSER_BEGIN);
  if (begin < 0) return undefined;
  const end = output.indexOf(PARSER_END, begin + PARSER_BEGIN.length);
  return end < 0 ? undefined : output.slice(begin + PARSER_BEGIN.length, end);
}

/** The map a row's parser printed through `liveParserRunner`, or why there is none. */
export function readLiveParserOutput(
  output: string,
): { ok: true; map: Map<string, LiveStatus> } | { ok: false; reason: string } {
  const printed = parserPrinted(output);
  if (printed === undefined)
    return { ok: false, reason: `the row's parser printed no result: ${output.slice(-400)}` };
  let data: unknown;
  try {
    data = JSON.parse(printed);
  } catch (err) {
    return { ok: false, reason: `the row's parser printed no JSON map (${(err as Error).message})` };
  }
  if (!data || typeof data !== "object" || Array.isArray(data))
    return { ok: false, reason: "the row's parser did not return a dict" };
  const map = new Map<string, LiveStatus>();
  for (const [name, status] of Object.entries(data as Record<string, unknown>)) {
    const s = String(status).toLowerCase();
    map.set(name, s.includes("pass") ? "pass" : s.includes("fail") ? "fail" : "skip");
  }
  return { ok: true, map };
}

/** Live's report of one instance. */
export interface LiveReport {
  resolved: boolean;
  FAIL_TO_PASS: { success: string[]; failure: string[] };
  PASS_TO_PASS: { success: string[]; failure: string[] };
}

/**
 * Live's `run_instance` grading: a test is a success when its status contains "pass" and a
 * failure when it contains "fail"; a test absent from the log is neither. Resolved when no
 * PASS_TO_PASS and no FAIL_TO_PASS test failed and every FAIL_TO_PASS test succeeded (or as many
 * succeeded as there are).
 */
export function gradeLive(row: SwebenchInstance, statuses: Map<string, LiveStatus>): LiveReport {
  const f2p = parseTestList(row, "FAIL_TO_PASS");
  const p2p = parseTestList(row, "PASS_TO_PASS");
  const split = (names: string[]) => {
    const set = new Set(names);
    const pick = (s: LiveStatus) => [...statuses].filter(([n, v]) => v === s && set.has(n)).map(([n]) => n);
    return { success: pick("pass"), failure: pick("fail") };
  };
  const report = { FAIL_TO_PASS: split(f2p), PASS_TO_PASS: split(p2p) };
  const allF2p =
    f2p.every((n) => report.FAIL_TO_PASS.success.includes(n)) ||
    report.FAIL_TO_PASS.success.length === f2p.length;
  return {
    resolved: report.PASS_TO_PASS.failure.length === 0 && report.FAIL_TO_PASS.failure.length === 0 && allF2p,
    ...report,
  };
}
