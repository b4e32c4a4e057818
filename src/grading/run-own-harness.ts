import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseTestList } from "../dataset/errors.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { EnvCheckVerdict } from "./env-check.js";
import type { EvalEnvironment } from "./eval-environment.js";
import { getResolutionStatus, type TestsStatus } from "./grading.js";
import type { HarnessReportEntry } from "./instance-report.js";
import {
  agreeingResolution,
  type InstanceCheck,
  type InstanceContext,
  type InstanceResult,
} from "./instance-result.js";
import {
  gradeLive,
  type LiveStatus,
  liveEvalScript,
  liveFields,
  liveParserRunner,
  livePytestStatuses,
  readLiveParserOutput,
} from "./live.js";
import { judgeLiveCheck } from "./live-check.js";
import { gradeProOutput, loadProScripts, PRO_WORKSPACE, proEntryScript } from "./pro.js";
import { InstanceSpecError } from "./test-spec.js";

/**
 * Grading of the rows whose harness is not SWE-bench's: SWE-bench Pro (its per-instance run script
 * and parser, in its image) and SWE-bench-Live (rebuild, test, print, the row's parser). A run
 * without results (no output.json, a parser that fails, no log between the markers) is an
 * infrastructure failure (outcome `error`, never `unresolved`); a Live run whose log has none of the
 * row's tests is `no_results`. Live rows get the environment check (live-check.ts) when it is on;
 * Pro rows cannot (their run script always applies the patch), and their result says so.
 */

type Done = (outcome: InstanceResult["outcome"], extra?: Partial<InstanceResult>) => InstanceResult;
type Log = (text: string) => Promise<void>;

const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

function report(
  instanceId: string,
  resolved: boolean,
  tests: TestsStatus,
): Record<string, HarnessReportEntry> {
  return {
    [instanceId]: {
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved,
      tests_status: tests,
    },
  };
}

/** Whether a row is graded by its own harness here. */
export function hasOwnHarness(row: SwebenchInstance): boolean {
  return row.pro !== undefined || row.live !== undefined;
}

/**
 * Grades one Pro or Live prediction; `open` gives a fresh environment for the instance (closing
 * the one before it; the caller closes the last).
 */
export async function gradeOwnHarness(
  instance: SwebenchInstance,
  patch: string,
  open: () => Promise<EvalEnvironment>,
  ctx: InstanceContext,
  log: Log,
  done: Done,
): Promise<InstanceResult> {
  if (instance.pro) return gradePro(instance, patch, await open(), ctx, log, done);
  return gradeLiveRun(instance, patch, open, ctx, log, done);
}

async function gradePro(
  row: SwebenchInstance,
  patch: string,
  handle: EvalEnvironment,
  ctx: InstanceContext,
  log: Log,
  done: Done,
): Promise<InstanceResult> {
  if (handle.kind !== "docker" && handle.kind !== "podman") {
    throw new InstanceSpecError(
      `instance ${row.instance_id} is a SWE-bench Pro instance: it grades in its image (--environment docker or podman), ` +
        `whose run script expects the repository at /app and the image's toolchain; got --environment ${handle.kind}`,
    );
  }
  if (!ctx.proScripts) {
    throw new InstanceSpecError(
      `instance ${row.instance_id} is a SWE-bench Pro instance: pass --pro-scripts DIR, a checkout of scaleapi/SWE-bench_Pro-os ` +
        "(its run_scripts/<id>/run_script.sh and parser.py grade each instance)",
    );
  }
  const scripts = await loadProScripts(ctx.proScripts, row.instance_id);
  const entry = proEntryScript(row, scripts);
  const { env } = handle;
  const w = PRO_WORKSPACE;
  await env.exec(`mkdir -p ${w}`, { timeout: 60 });
  await env.writeFile(`${w}/patch.diff`, patch);
  await env.writeFile(`${w}/run_script.sh`, scripts.runScript);
  await env.writeFile(`${w}/parser.py`, scripts.parser);
  await env.writeFile(`${w}/entryscript.sh`, entry);
  await writeFile(join(ctx.logDir, "entryscript.sh"), entry);
  await log("SWE-bench Pro: bash /workspace/entryscript.sh (its run script and parser)");
  const r = await env.exec(`bash ${w}/entryscript.sh`, { cwd: "/app", timeout: ctx.timeout });
  const read = async (name: string) => {
    try {
      return (await env.readFile(`${w}/${name}`)).toString("utf8");
    } catch {
      return undefined;
    }
  };
  const [stdout, stderr, output] = [
    await read("stdout.log"),
    await read("stderr.log"),
    await read("output.json"),
  ];
  await writeFile(join(ctx.logDir, "test_output.txt"), r.output);
  await writeFile(join(ctx.logDir, "stdout.log"), stdout ?? "");
  await writeFile(join(ctx.logDir, "stderr.log"), stderr ?? "");
  if (output !== undefined) await writeFile(join(ctx.logDir, "output.json"), output);
  if (r.timedOut) return done("timeout", { error: `the tests timed out after ${ctx.timeout} s` });
  const verdict = gradeProOutput(row, output);
  if (!verdict.graded) {
    await log(`infrastructure failure: ${verdict.reason}`);
    return done("error", { error: `infrastructure failure: ${verdict.reason}` });
  }
  const passed = new Set(verdict.passed);
  const split = (names: string[]) => ({
    success: names.filter((n) => passed.has(n)),
    failure: names.filter((n) => !passed.has(n)),
  });
  const tests: TestsStatus = {
    FAIL_TO_PASS: split(parseTestList(row, "FAIL_TO_PASS")),
    PASS_TO_PASS: split(parseTestList(row, "PASS_TO_PASS")),
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
  const body = report(row.instance_id, verdict.resolved, tests);
  await writeFileAtomic(join(ctx.logDir, "report.json"), `${JSON.stringify(body, null, 4)}\n`);
  await log(
    `graded (SWE-bench Pro): ${verdict.resolved ? "resolved" : `not resolved, ${verdict.missing.length} required tests did not pass`}`,
  );
  return done(verdict.resolved ? "resolved" : "unresolved", {
    resolution: agreeingResolution(verdict.resolved, getResolutionStatus(tests)),
    report: body,
    ...proCheck(handle, ctx),
  });
}

/** Pro rows are not checked (their run script decides what runs); with the check on, the result says so. */
function proCheck(handle: EvalEnvironment, ctx: InstanceContext): Partial<InstanceResult> {
  if (!ctx.checkEnv) return {};
  return {
    check: { status: "off", cached: false, problems: [], ranWith: handle.image ?? handle.kind },
    warnings: [
      "environment check not run: SWE-bench Pro rows grade with their own run script in their image, which the check cannot run without the model's patch",
    ],
  };
}

/** Runs Live's script in `handle` (with `patchFile`, or without a model patch) and reads its log with the row's parser. */
async function runLive(
  row: SwebenchInstance,
  handle: EvalEnvironment,
  ctx: InstanceContext,
  patchFile: string | undefined,
  name: string,
): Promise<
  | { timedOut: true; output: string }
  | { timedOut: false; output: string; statuses: Map<string, LiveStatus> | undefined; failure?: string }
> {
  const { env, repoDir, scratchDir } = handle;
  const script = liveEvalScript(row, { repoDir, patchFile });
  await writeFile(join(ctx.logDir, `${name}.sh`), script);
  await env.writeFile(`${scratchDir}/${name}.sh`, script);
  const r = await env.exec(`/bin/bash ${q(`${scratchDir}/${name}.sh`)}`, {
    cwd: repoDir,
    timeout: ctx.timeout,
  });
  if (r.timedOut)
    return { timedOut: true, output: `${r.output}\n\nTimeout error: ${ctx.timeout} seconds exceeded.` };
  const start = r.output.lastIndexOf(">>>>> Start Test Output\n");
  const end = r.output.lastIndexOf(">>>>> End Test Output");
  if (start < 0 || end < start) {
    return {
      timedOut: false,
      output: r.output,
      statuses: undefined,
      failure: "the run did not get to the print commands (no log between the markers)",
    };
  }
  const testLog = r.output.slice(start + ">>>>> Start Test Output\n".length, end);
  const live = row.live as NonNullable<SwebenchInstance["live"]>;
  if (live.parser.trim().toLowerCase() === "pytest")
    return { timedOut: false, output: r.output, statuses: livePytestStatuses(testLog) };
  // The row's parser is code from the dataset: it runs inside the environment, not here.
  await env.writeFile(`${scratchDir}/live_parser.py`, live.parser);
  await env.writeFile(`${scratchDir}/live_log.txt`, testLog);
  await env.writeFile(
    `${scratchDir}/live_run_parser.py`,
    liveParserRunner(`${scratchDir}/live_parser.py`, `${scratchDir}/live_log.txt`),
  );
  const p = await env.exec(`python3 ${q(`${scratchDir}/live_run_parser.py`)}`, { timeout: 600 });
  const parsed = readLiveParserOutput(p.output);
  if (!parsed.ok) return { timedOut: false, output: r.output, statuses: undefined, failure: parsed.reason };
  return { timedOut: false, output: r.output, statuses: parsed.map };
}

/**
 * The environment check of a Live row (live-check.ts): its script without the model's patch.
 * Returns the check and, for a mismatch, the result to return; not cached (the check's inputs
 * are the row's commands, run in this environment each time).
 */
async function checkLive(
  row: SwebenchInstance,
  handle: EvalEnvironment,
  ctx: InstanceContext,
  log: Log,
): Promise<{ check: InstanceCheck; verdict: EnvCheckVerdict }> {
  await log(
    "environment check: the row's tests with the test patch, without the model patch (SWE-bench-Live)",
  );
  const run = await runLive(row, handle, ctx, undefined, "env_check");
  await writeFile(join(ctx.logDir, "env_check_output.txt"), run.output);
  if (!run.timedOut && run.failure) {
    throw new Error(`environment check could not read the tests' results: ${run.failure}`);
  }
  const verdict = judgeLiveCheck(row, run.timedOut ? new Map() : (run.statuses ?? new Map()), run.timedOut);
  const ranWith = handle.image ? `image ${handle.image}` : handle.kind;
  await writeFileAtomic(
    join(ctx.logDir, "env_check.json"),
    `${JSON.stringify({ ...verdict, cached: false, ran_with: ranWith }, null, 2)}\n`,
  );
  await log(`environment check: ${verdict.status}`);
  return { check: { status: verdict.status, cached: false, problems: verdict.problems, ranWith }, verdict };
}

async function gradeLiveRun(
  row: SwebenchInstance,
  patch: string,
  open: () => Promise<EvalEnvironment>,
  ctx: InstanceContext,
  log: Log,
  done: Done,
): Promise<InstanceResult> {
  liveFields(row);
  let handle = await open();
  let check: InstanceCheck | undefined;
  const warnings: string[] = [];
  if (ctx.checkEnv) {
    const c = await checkLive(row, handle, ctx, log);
    check = c.check;
    if (c.verdict.drift) warnings.push(c.verdict.drift);
    if (c.verdict.status === "mismatch") {
      await log(`>>>>> Environment Mismatch: ${c.verdict.problems.join("; ")}`);
      return done("environment_mismatch", { error: c.verdict.problems.join("; "), check });
    }
    // The check changed the work tree (test patch, build output): grade in a fresh one.
    handle = await open();
  }
  const extra = { ...(check ? { check } : {}), ...(warnings.length ? { warnings } : {}) };
  const patchFile = `${handle.scratchDir}/patch.diff`;
  await handle.env.writeFile(patchFile, patch);
  await log("SWE-bench-Live: patches, rebuild, tests, print (eval.sh)");
  const run = await runLive(row, handle, ctx, patchFile, "eval");
  await writeFile(join(ctx.logDir, "test_output.txt"), run.output);
  if (run.timedOut) return done("timeout", { error: `the tests timed out after ${ctx.timeout} s`, ...extra });
  if (run.failure || !run.statuses) {
    const error = `infrastructure failure: ${run.failure ?? "no results"}`;
    await log(error);
    return done("error", { error, ...extra });
  }
  const graded = gradeLive(row, run.statuses);
  const named = [...parseTestList(row, "FAIL_TO_PASS"), ...parseTestList(row, "PASS_TO_PASS")];
  const environment = {
    kind: handle.kind,
    ...(handle.image ? { image: handle.image } : {}),
    python: null,
    ...(check
      ? {
          check: {
            status: check.status === "mismatch" ? ("off" as const) : check.status,
            cached: false,
            problems: check.problems,
          },
        }
      : {}),
  };
  if (!named.some((n) => run.statuses?.has(n))) {
    // None of the row's tests is in the log: the run says nothing about the patch.
    const reason = `none of the row's ${named.length} tests is in the log the row's parser read (${run.statuses.size} other results): the tests did not run (a test module that cannot import the package?); test_output.txt shows why`;
    const body: Record<string, HarnessReportEntry> = {
      [row.instance_id]: {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: false,
        no_results_reason: reason,
        environment,
      },
    };
    await writeFileAtomic(join(ctx.logDir, "report.json"), `${JSON.stringify(body, null, 4)}\n`);
    await log(`no test results (SWE-bench-Live): ${reason}`);
    return done("no_results", { error: reason, report: body, ...extra });
  }
  const tests: TestsStatus = {
    FAIL_TO_PASS: graded.FAIL_TO_PASS,
    PASS_TO_PASS: graded.PASS_TO_PASS,
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
  const body = report(row.instance_id, graded.resolved, tests);
  body[row.instance_id].environment = environment;
  await writeFileAtomic(join(ctx.logDir, "report.json"), `${JSON.stringify(body, null, 4)}\n`);
  await log(`graded (SWE-bench-Live): ${graded.resolved ? "resolved" : "not resolved"}`);
  // Live counts a FAIL_TO_PASS test absent from the log as neither passed nor failed; the
  // resolution must not read RESOLVED_FULL beside an unresolved verdict.
  const missing = parseTestList(row, "FAIL_TO_PASS").filter((n) => !graded.FAIL_TO_PASS.success.includes(n));
  const forLabel: TestsStatus = {
    ...tests,
    FAIL_TO_PASS: {
      success: graded.FAIL_TO_PASS.success,
      failure: [...new Set([...graded.FAIL_TO_PASS.failure, ...missing])],
    },
  };
  return done(graded.resolved ? "resolved" : "unresolved", {
    resolution: agreeingResolution(graded.resolved, getResolutionStatus(forLabel)),
    report: body,
    ...extra,
  });
}
