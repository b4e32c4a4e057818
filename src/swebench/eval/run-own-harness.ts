import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { parseTestList } from "../dataset/errors.js";
import type { SwebenchInstance } from "../types.js";
import type { EvalEnvironment } from "./eval-environment.js";
import { getResolutionStatus, type TestsStatus } from "./grading.js";
import type { HarnessReportEntry } from "./instance-report.js";
import type { InstanceContext, InstanceResult } from "./instance-result.js";
import {
  gradeLive,
  type LiveStatus,
  liveEvalScript,
  liveParserRunner,
  livePytestStatuses,
  readLiveParserOutput,
} from "./live.js";
import { gradeProOutput, loadProScripts, PRO_WORKSPACE, proEntryScript } from "./pro.js";
import { InstanceSpecError } from "./test-spec.js";

/**
 * Grading of the rows whose harness is not SWE-bench's: SWE-bench Pro (its per-instance run script
 * and parser, in its image) and SWE-bench-Live (rebuild, test, print, the row's parser). A run
 * without results (no output.json, a parser that fails, no log between the markers) is an
 * infrastructure failure (outcome `error`, never `unresolved`).
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

/** Grades one Pro or Live prediction in `handle` (opened for the instance); `close` is the caller's. */
export async function gradeOwnHarness(
  instance: SwebenchInstance,
  patch: string,
  handle: EvalEnvironment,
  ctx: InstanceContext,
  log: Log,
  done: Done,
): Promise<InstanceResult> {
  if (instance.pro) return gradePro(instance, patch, handle, ctx, log, done);
  return gradeLiveRun(instance, patch, handle, ctx, log, done);
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
    resolution: getResolutionStatus(tests),
    report: body,
  });
}

async function gradeLiveRun(
  row: SwebenchInstance,
  patch: string,
  handle: EvalEnvironment,
  ctx: InstanceContext,
  log: Log,
  done: Done,
): Promise<InstanceResult> {
  const { env, repoDir, scratchDir } = handle;
  const patchFile = `${scratchDir}/patch.diff`;
  await env.writeFile(patchFile, patch);
  const script = liveEvalScript(row, { repoDir, patchFile });
  await writeFile(join(ctx.logDir, "eval.sh"), script);
  await env.writeFile(`${scratchDir}/eval.sh`, script);
  await log("SWE-bench-Live: patches, rebuild, tests, print (eval.sh)");
  const r = await env.exec(`/bin/bash ${q(`${scratchDir}/eval.sh`)}`, { cwd: repoDir, timeout: ctx.timeout });
  await writeFile(join(ctx.logDir, "test_output.txt"), r.output);
  if (r.timedOut) return done("timeout", { error: `the tests timed out after ${ctx.timeout} s` });
  const start = r.output.lastIndexOf(">>>>> Start Test Output\n");
  const end = r.output.lastIndexOf(">>>>> End Test Output");
  if (start < 0 || end < start) {
    const error =
      "infrastructure failure: the run did not get to the print commands (no log between the markers)";
    await log(error);
    return done("error", { error });
  }
  const testLog = r.output.slice(start + ">>>>> Start Test Output\n".length, end);
  const live = row.live as NonNullable<SwebenchInstance["live"]>;
  let statuses: Map<string, LiveStatus>;
  if (live.parser.trim().toLowerCase() === "pytest") statuses = livePytestStatuses(testLog);
  else {
    // The row's parser is code from the dataset: it runs inside the environment, not here.
    await env.writeFile(`${scratchDir}/live_parser.py`, live.parser);
    await env.writeFile(`${scratchDir}/live_log.txt`, testLog);
    await env.writeFile(
      `${scratchDir}/live_run_parser.py`,
      liveParserRunner(`${scratchDir}/live_parser.py`, `${scratchDir}/live_log.txt`),
    );
    const p = await env.exec(`python3 ${q(`${scratchDir}/live_run_parser.py`)}`, { timeout: 600 });
    const parsed = readLiveParserOutput(p.output);
    if (!parsed.ok) {
      await log(`infrastructure failure: ${parsed.reason}`);
      return done("error", { error: `infrastructure failure: ${parsed.reason}` });
    }
    statuses = parsed.map;
  }
  const graded = gradeLive(row, statuses);
  const tests: TestsStatus = {
    FAIL_TO_PASS: graded.FAIL_TO_PASS,
    PASS_TO_PASS: graded.PASS_TO_PASS,
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
  const body = report(row.instance_id, graded.resolved, tests);
  await writeFileAtomic(join(ctx.logDir, "report.json"), `${JSON.stringify(body, null, 4)}\n`);
  await log(`graded (SWE-bench-Live): ${graded.resolved ? "resolved" : "not resolved"}`);
  return done(graded.resolved ? "resolved" : "unresolved", {
    resolution: getResolutionStatus(tests),
    report: body,
  });
}
