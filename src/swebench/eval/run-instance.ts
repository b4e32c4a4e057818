import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import type { SwebenchInstance } from "../types.js";
import { applyModelPatch, looksLikeDiff } from "./apply-patch.js";
import type { EnvironmentProvider, EvalEnvironment } from "./eval-environment.js";
import { makeEvalScript } from "./eval-script.js";
import type { ResolvedStatus } from "./grading.js";
import { gradeTestOutput, type HarnessReportEntry } from "./instance-report.js";
import type { HarnessVersion } from "./parsers/index.js";
import type { Prediction } from "./predictions.js";
import { resolveTestSpec, type SpecOverrides } from "./test-spec.js";

/**
 * How one prediction ended. `resolved`/`unresolved`: graded (report.json written); the others
 * have no report.json, as in the harness, and count as `error_ids` in the harness summary,
 * except `empty_patch` (not run). patchloop keeps the reasons apart.
 */
export type InstanceOutcome =
  | "resolved"
  | "unresolved"
  | "empty_patch"
  | "patch_apply_failed"
  | "timeout"
  | "error";

/** The result of one prediction. */
export interface InstanceResult {
  instance_id: string;
  repo: string;
  outcome: InstanceOutcome;
  /** RESOLVED_FULL / PARTIAL / NO for graded instances. */
  resolution?: ResolvedStatus;
  /** The report.json body, for graded instances. */
  report?: Record<string, HarnessReportEntry>;
  /** What went wrong, in words (apply failure, timeout, environment or data error). */
  error?: string;
  seconds: number;
}

/** Settings shared by every instance of a run. */
export interface InstanceContext {
  /** `<output>/<run_id>/<instance_id>`. */
  logDir: string;
  provider: EnvironmentProvider;
  /** Seconds eval.sh may run. */
  timeout: number;
  harness: HarnessVersion;
  /** Re-run the spec's install in eval.sh; default: the environment's choice. */
  install?: boolean;
  specs?: SpecOverrides;
  normalizeDjango?: boolean;
}

/**
 * Evaluates one prediction: patch.diff, a fresh environment, the harness's apply chain, eval.sh
 * with a timeout, test_output.txt, grading, report.json; the environment is always cleaned up.
 * Never rejects: every failure becomes the result's outcome and `error`.
 */
export async function evaluateInstance(
  instance: SwebenchInstance,
  prediction: Prediction,
  ctx: InstanceContext,
): Promise<InstanceResult> {
  const started = Date.now();
  const base = { instance_id: instance.instance_id, repo: instance.repo };
  const done = (outcome: InstanceOutcome, extra: Partial<InstanceResult> = {}): InstanceResult => ({
    ...base,
    outcome,
    ...extra,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  });
  const patch = prediction.model_patch;
  if (patch === null || patch === "") return done("empty_patch");
  const logFile = join(ctx.logDir, "run_instance.log");
  const log = (text: string) =>
    appendFile(logFile, `${new Date().toISOString()} ${text}\n`).catch(() => undefined);
  let handle: EvalEnvironment | undefined;
  try {
    await mkdir(ctx.logDir, { recursive: true });
    if (typeof patch !== "string") {
      const error = `model_patch must be a string (a unified diff), got ${typeof patch}`;
      await log(error);
      return done("error", { error });
    }
    await writeFile(join(ctx.logDir, "patch.diff"), patch);
    let spec: ReturnType<typeof resolveTestSpec>;
    try {
      spec = resolveTestSpec(instance, ctx.specs);
    } catch (err) {
      await log(`cannot evaluate: ${(err as Error).message}`);
      return done("error", { error: (err as Error).message });
    }
    await log(`test command (${spec.source}): ${spec.testCommand}; log parser: ${spec.logParser}`);
    if (!looksLikeDiff(patch)) {
      const error = "model_patch is not a unified diff (no diff/---/+++/@@ line); nothing to apply";
      await log(`>>>>> Patch Apply Failed: ${error}`);
      return done("patch_apply_failed", { error });
    }
    try {
      handle = await ctx.provider(instance);
    } catch (err) {
      const error = `environment could not be created: ${(err as Error).message}`;
      await log(error);
      return done("error", { error });
    }
    const { env, repoDir, scratchDir } = handle;
    const patchPath = `${scratchDir}/patch.diff`;
    await env.writeFile(patchPath, patch);
    const applied = await applyModelPatch(env, repoDir, patchPath, ctx.harness);
    await log(applied.log);
    if (!applied.applied) {
      await log(">>>>> Patch Apply Failed");
      return done("patch_apply_failed", { error: `the patch did not apply (${applied.reasons.join("; ")})` });
    }
    await log(`>>>>> Applied Patch (${applied.command})`);
    const script = makeEvalScript({
      spec,
      baseCommit: instance.base_commit,
      testPatch: instance.test_patch,
      repoDir,
      activate: handle.activate,
      safeDirectory: handle.safeDirectory,
      install: ctx.install ?? handle.installByDefault,
      harness: ctx.harness,
    });
    await writeFile(join(ctx.logDir, "eval.sh"), script);
    await env.writeFile(`${scratchDir}/eval.sh`, script);
    const result = await env.exec(`/bin/bash ${scratchDir}/eval.sh`, { cwd: repoDir, timeout: ctx.timeout });
    if (result.truncated) await log("the test output passed the capture limit; its middle was dropped");
    let output = result.output;
    if (result.timedOut) output += `\n\nTimeout error: ${ctx.timeout} seconds exceeded.`;
    await writeFile(join(ctx.logDir, "test_output.txt"), output);
    if (result.timedOut) {
      await log(`tests timed out after ${ctx.timeout} s`);
      return done("timeout", { error: `the tests timed out after ${ctx.timeout} s` });
    }
    const graded = gradeTestOutput(
      instance.instance_id,
      output,
      spec,
      ctx.harness,
      ctx.normalizeDjango ?? true,
    );
    await writeFileAtomic(join(ctx.logDir, "report.json"), `${JSON.stringify(graded.report, null, 4)}\n`);
    const resolved = graded.report[instance.instance_id].resolved;
    await log(`graded: ${graded.resolution ?? `no test results (${graded.notFoundReason})`}`);
    return done(resolved ? "resolved" : "unresolved", {
      resolution: graded.resolution,
      report: graded.report,
      error: graded.notFoundReason,
    });
  } catch (err) {
    const error = `${(err as Error).name === "ParserCrash" ? "" : "evaluation failed: "}${(err as Error).message}`;
    await log(error);
    return done("error", { error });
  } finally {
    if (handle) {
      await handle.cleanup().catch(async (err) => log(`cleanup failed: ${(err as Error).message}`));
    }
  }
}
