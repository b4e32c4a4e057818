import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SwebenchInstance } from "../dataset/types.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { applyModelPatch, looksLikeDiff } from "./apply-patch.js";
import {
  type CachedCheck,
  checkKey,
  type EnvCheckVerdict,
  environmentFingerprint,
  judgeCheck,
  readCachedCheck,
  writeCachedCheck,
} from "./env-check.js";
import type { EvalEnvironment } from "./eval-environment.js";
import { adaptRowScript, makeEvalScript } from "./eval-script.js";
import { MARKERS } from "./grading.js";
import { type EnvironmentRecord, gradeTestOutput } from "./instance-report.js";
import {
  agreeingResolution,
  type InstanceCheck,
  type InstanceContext,
  type InstanceOutcome,
  type InstanceResult,
} from "./instance-result.js";
import { ParserCrash } from "./parsers/py-text.js";
import type { Prediction } from "./predictions.js";
import {
  type DeclaredPython,
  declarePython,
  PythonEnvError,
  type PythonProbe,
  probePython,
} from "./python-env.js";
import { gradeOwnHarness, hasOwnHarness } from "./run-own-harness.js";
import { type InstanceTestSpec, resolveTestSpec } from "./test-spec.js";

/** An opened environment with the Python of the tests declared and probed. */
interface Prepared {
  handle: EvalEnvironment;
  declared?: DeclaredPython;
  probe?: PythonProbe;
  /** eval.sh's first lines (host runs: the declared Python). */
  lines: string[];
  fingerprint: string;
}

const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

async function prepare(handle: EvalEnvironment, spec: InstanceTestSpec): Promise<Prepared> {
  let declared: DeclaredPython | undefined;
  if (handle.hostPython)
    declared = await declarePython(
      handle.env,
      handle.repoDir,
      handle.scratchDir,
      spec.python,
      handle.hostDir,
    );
  const lines = declared?.lines ?? [];
  const probe = await probePython(
    handle.env,
    handle.repoDir,
    handle.scratchDir,
    [...lines, ...handle.activate],
    spec.python.package,
  );
  // The per-run folders (work tree, scratch) differ between runs; the fingerprint must not.
  const stable = lines.map((l) =>
    l.replaceAll(handle.repoDir, "<work tree>").replaceAll(handle.scratchDir, "<scratch>"),
  );
  const fingerprint = environmentFingerprint({
    kind: handle.kind,
    image: handle.image,
    platform: handle.platform,
    lines: stable,
    probe,
  });
  return { handle, declared, probe, lines, fingerprint };
}

function scriptFor(
  p: Prepared,
  instance: SwebenchInstance,
  spec: InstanceTestSpec,
  ctx: InstanceContext,
): string {
  const { handle, declared } = p;
  const environment = declared
    ? [
        `# Python of these tests, declared by patchloop (report.json "environment" records what ran): ` +
          `${declared.interpreter} (Python ${p.probe?.version ?? "unknown"}), PYTHONPATH ${declared.pythonpath}`,
        ...p.lines,
      ]
    : p.lines;
  if (spec.evalScript) {
    return adaptRowScript(spec.evalScript, {
      repoDir: handle.repoDir,
      environment: declared ? environment : undefined,
      setup: declared?.setup,
      harness: ctx.harness,
    });
  }
  return makeEvalScript({
    spec,
    baseCommit: instance.base_commit,
    testPatch: instance.test_patch,
    repoDir: handle.repoDir,
    activate: handle.activate,
    safeDirectory: handle.safeDirectory,
    install: ctx.install ?? handle.installByDefault,
    harness: ctx.harness,
    environment,
    setup: declared?.setup,
  });
}

function describeRun(p: Prepared): string {
  const parts: string[] = [];
  const py = p.probe;
  if (p.declared) parts.push(`python ${p.declared.interpreter}${py ? ` ${py.version}` : ""}`);
  else if (py) parts.push(`python ${py.executable} ${py.version}`);
  if (p.declared) {
    const rel = p.declared.pythonpath
      .split(":")
      .map((e) =>
        e === p.handle.repoDir ? "<work tree>" : e.replace(`${p.handle.repoDir}/`, "<work tree>/"),
      );
    parts.push(`PYTHONPATH ${rel.join(":")}`);
  }
  if (p.handle.image)
    parts.push(`image ${p.handle.image}${p.handle.platform ? ` (${p.handle.platform})` : ""}`);
  return parts.join(", ") || p.handle.kind;
}

function environmentRecord(p: Prepared, check?: EnvironmentRecord["check"]): EnvironmentRecord {
  const py = p.probe;
  return {
    kind: p.handle.kind,
    ...(p.handle.image ? { image: p.handle.image } : {}),
    ...(p.handle.platform ? { platform: p.handle.platform } : {}),
    python: py
      ? {
          executable: py.executable,
          version: py.version,
          ...(p.declared
            ? {
                declared: {
                  interpreter: p.declared.interpreter,
                  PYTHONPATH: p.declared.pythonpath,
                  ...(p.declared.venv ? { venv: p.declared.venv } : {}),
                },
              }
            : {}),
          work_tree: p.handle.repoDir,
          package: py.package
            ? { name: py.package.name, file: py.package.file, inside_work_tree: py.package.inside_work_tree }
            : null,
        }
      : null,
    ...(check ? { check } : {}),
  };
}

/** Appends a line to the instance's run_instance.log (never fails). */
type Log = (text: string) => Promise<void>;

/** How a step ends the instance early: its outcome and what the result says beside it. */
interface Early {
  outcome: InstanceOutcome;
  extra: Partial<InstanceResult>;
}

/**
 * An error whose message is the whole explanation (no "evaluation failed: " before it): the
 * environment could not be created, the Python of the tests could not be declared, a log parser
 * crashed. Any other error is unexpected and says so.
 */
class StepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StepError";
  }
}

const NOT_A_DIFF = "model_patch is not a unified diff (no diff/---/+++/@@ line); nothing to apply";

/** Opens the instance's environment; a provider that fails is a StepError. */
async function openEnvironment(instance: SwebenchInstance, ctx: InstanceContext): Promise<EvalEnvironment> {
  try {
    return await ctx.provider(instance);
  } catch (err) {
    throw new StepError(`environment could not be created: ${(err as Error).message}`);
  }
}

/** The environment check's result for the grade: the check, warnings, and an early end on a mismatch. */
interface Checked {
  p: Prepared;
  check: InstanceCheck;
  warnings: string[];
  mismatch?: Early;
}

/**
 * The environment check (`ctx.checkEnv`): the tests at the base commit with the test patch and
 * without the model patch, cached per instance and environment; a check that changed the work tree
 * is followed by a fresh environment (`reopen`). Off, it warns when the package under test is
 * imported from outside the work tree.
 */
async function checkEnvironment(
  p: Prepared,
  instance: SwebenchInstance,
  spec: InstanceTestSpec,
  ctx: InstanceContext,
  log: Log,
  reopen: () => Promise<Prepared>,
): Promise<Checked> {
  const warnings: string[] = [];
  const pkg = p.probe?.package;
  if (!ctx.checkEnv) {
    if (pkg?.file && !pkg.inside_work_tree)
      warnings.push(
        `${pkg.name} is imported from ${pkg.file}, outside the work tree (environment check off): the grade may describe that copy`,
      );
    return { p, check: { status: "off", cached: false, problems: [], ranWith: describeRun(p) }, warnings };
  }
  const key = checkKey(p.fingerprint, instance, spec, ctx.harness);
  const hit = ctx.checkCacheDir
    ? await readCachedCheck(ctx.checkCacheDir, instance.instance_id, key)
    : undefined;
  let verdict: EnvCheckVerdict;
  let checkLog: string;
  if (hit) {
    verdict = hit.check.verdict;
    checkLog = hit.log;
    await log(`environment check: ${verdict.status} (cached ${hit.check.checked_at})`);
  } else {
    const ran = await runCheck(p, instance, spec, ctx, log, key);
    verdict = ran.verdict;
    checkLog = ran.log;
    // The check changed the work tree (test patch, created files): grade in a fresh one.
    if (verdict.status !== "mismatch") p = await reopen();
  }
  const check: InstanceCheck = {
    status: verdict.status,
    cached: Boolean(hit),
    problems: verdict.problems,
    ranWith: describeRun(p),
  };
  await writeFile(join(ctx.logDir, "env_check_output.txt"), checkLog);
  await writeFileAtomic(
    join(ctx.logDir, "env_check.json"),
    `${JSON.stringify({ ...verdict, cached: Boolean(hit), ran_with: check.ranWith, environment: environmentRecord(p) }, null, 2)}\n`,
  );
  if (verdict.drift) warnings.push(verdict.drift);
  if (verdict.status !== "mismatch") return { p, check, warnings };
  await log(`>>>>> Environment Mismatch: ${verdict.problems.join("; ")}`);
  return {
    p,
    check,
    warnings,
    mismatch: { outcome: "environment_mismatch", extra: { error: verdict.problems.join("; "), check } },
  };
}

/** Runs the environment check's script once and judges it; caches a verdict that is not a timeout. */
async function runCheck(
  p: Prepared,
  instance: SwebenchInstance,
  spec: InstanceTestSpec,
  ctx: InstanceContext,
  log: Log,
  key: string,
): Promise<{ verdict: EnvCheckVerdict; log: string }> {
  const script = scriptFor(p, instance, spec, ctx);
  const path = `${p.handle.scratchDir}/env_check.sh`;
  await p.handle.env.writeFile(path, script);
  await log("environment check: the tests at the base commit with the test patch, without the model patch");
  const r = await p.handle.env.exec(`/bin/bash ${path}`, { cwd: p.handle.repoDir, timeout: ctx.timeout });
  const checkLog = r.timedOut ? `${r.output}\n\nTimeout error: ${ctx.timeout} seconds exceeded.` : r.output;
  if (!r.timedOut && !checkLog.includes(MARKERS.start)) {
    // eval.sh did not get to the tests at all (bash could not start, the script was not
    // written): the environment is broken, which is not a verdict on the instance; nothing is cached.
    await writeFile(join(ctx.logDir, "env_check_output.txt"), checkLog);
    throw new Error(
      `environment check could not run eval.sh (exit ${r.returncode}): ${checkLog.trim().split("\n")[0]?.slice(0, 300) ?? "no output"}`,
    );
  }
  const verdict = judgeCheck(checkLog, spec, ctx.harness, p.probe, {
    normalizeDjango: ctx.normalizeDjango,
    timedOut: r.timedOut,
  });
  const cached: CachedCheck = {
    instance_id: instance.instance_id,
    fingerprint: p.fingerprint,
    key,
    checked_at: new Date().toISOString(),
    verdict,
    python: p.probe ? { executable: p.probe.executable, version: p.probe.version } : null,
  };
  // A check that ran out of time says nothing lasting: it runs again next time.
  if (ctx.checkCacheDir && verdict.status !== "timeout") {
    const file = await writeCachedCheck(ctx.checkCacheDir, cached, checkLog);
    await log(`environment check: ${verdict.status}; cached in ${file}`);
  } else await log(`environment check: ${verdict.status}`);
  return { verdict, log: checkLog };
}

/** Applies the model patch as the harness does; an early end when it does not apply. */
async function applyPatch(p: Prepared, patch: string, ctx: InstanceContext, log: Log): Promise<Early | null> {
  const { env, repoDir, scratchDir } = p.handle;
  const patchPath = `${scratchDir}/patch.diff`;
  await env.writeFile(patchPath, patch);
  const applied = await applyModelPatch(env, repoDir, patchPath, ctx.harness);
  await log(applied.log);
  if (!applied.applied) {
    await log(">>>>> Patch Apply Failed");
    return {
      outcome: "patch_apply_failed",
      extra: { error: `the patch did not apply (${applied.reasons.join("; ")})` },
    };
  }
  await log(`>>>>> Applied Patch (${applied.command})`);
  return null;
}

/** Runs eval.sh with the time limit and writes test_output.txt; the output, or an early end on a timeout. */
async function runTests(
  p: Prepared,
  instance: SwebenchInstance,
  spec: InstanceTestSpec,
  ctx: InstanceContext,
  log: Log,
): Promise<{ output: string } | Early> {
  const { env, repoDir, scratchDir } = p.handle;
  const script = scriptFor(p, instance, spec, ctx);
  await writeFile(join(ctx.logDir, "eval.sh"), script);
  await env.writeFile(`${scratchDir}/eval.sh`, script);
  const result = await env.exec(`/bin/bash ${q(`${scratchDir}/eval.sh`)}`, {
    cwd: repoDir,
    timeout: ctx.timeout,
  });
  if (result.truncated) await log("the test output passed the capture limit; its middle was dropped");
  let output = result.output;
  if (result.timedOut) output += `\n\nTimeout error: ${ctx.timeout} seconds exceeded.`;
  await writeFile(join(ctx.logDir, "test_output.txt"), output);
  if (!result.timedOut) return { output };
  await log(`tests timed out after ${ctx.timeout} s`);
  return { outcome: "timeout", extra: { error: `the tests timed out after ${ctx.timeout} s` } };
}

/** Parses the test output and grades it as the harness does; writes report.json. */
async function grade(
  p: Prepared,
  instance: SwebenchInstance,
  spec: InstanceTestSpec,
  ctx: InstanceContext,
  log: Log,
  output: string,
  check: InstanceCheck,
): Promise<Early> {
  const graded = gradeTestOutput(
    instance.instance_id,
    output,
    spec,
    ctx.harness,
    ctx.normalizeDjango ?? true,
    await readFile(join(ctx.logDir, "run_instance.log"), "utf8").catch(() => ""),
  );
  const entry = graded.report[instance.instance_id];
  entry.environment = environmentRecord(p, {
    status: check.status === "mismatch" ? "off" : check.status,
    cached: check.cached,
    problems: check.problems,
  });
  await writeFileAtomic(join(ctx.logDir, "report.json"), `${JSON.stringify(graded.report, null, 4)}\n`);
  await log(`graded: ${graded.resolution ?? `no test results (${graded.notFoundReason})`}`);
  if (!graded.resolution) {
    // No results: the tests say nothing about the patch, so it is not graded (not unresolved).
    return {
      outcome: "no_results",
      extra: { report: graded.report, error: graded.notFoundReason ?? "the log parser found no test lines" },
    };
  }
  return {
    outcome: entry.resolved ? "resolved" : "unresolved",
    extra: { resolution: agreeingResolution(entry.resolved, graded.resolution), report: graded.report },
  };
}

/**
 * Evaluates one prediction in steps: check the patch, resolve the test spec, open the environment
 * (the Python of the tests declared on the host, and probed), check the environment (cached per
 * instance and environment), apply the patch as the harness does, run eval.sh with a timeout, parse
 * and grade, write report.json. Each step ends the instance early with an outcome of its own; every
 * environment is cleaned up. Never rejects: every failure becomes the result's outcome and `error`.
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
  const log: Log = (text) =>
    appendFile(logFile, `${new Date().toISOString()} ${text}\n`).catch(() => undefined);
  let handle: EvalEnvironment | undefined;
  const release = async () => {
    const h = handle;
    handle = undefined;
    if (h) await h.close().catch(async (err) => log(`cleanup failed: ${(err as Error).message}`));
  };
  const reopen = async (): Promise<EvalEnvironment> => {
    await release();
    handle = await openEnvironment(instance, ctx);
    return handle;
  };
  try {
    await mkdir(ctx.logDir, { recursive: true });
    if (typeof patch !== "string") {
      const error = `model_patch must be a string (a unified diff), got ${typeof patch}`;
      await log(error);
      return done("error", { error });
    }
    await writeFile(join(ctx.logDir, "patch.diff"), patch);
    if (hasOwnHarness(instance)) {
      if (!looksLikeDiff(patch)) {
        await log(`>>>>> Patch Apply Failed: ${NOT_A_DIFF}`);
        return done("patch_apply_failed", { error: NOT_A_DIFF });
      }
      return await gradeOwnHarness(instance, patch, reopen, ctx, log, done);
    }
    let spec: InstanceTestSpec;
    try {
      spec = resolveTestSpec(instance, ctx.specs, ctx.python, ctx.harness);
    } catch (err) {
      await log(`cannot evaluate: ${(err as Error).message}`);
      return done("error", { error: (err as Error).message });
    }
    await log(
      spec.evalScript
        ? `eval script: the row's own (v5); log parser: ${spec.logParser}; eval type: ${spec.evalType}`
        : `test command (${spec.source}): ${spec.testCommand}; log parser: ${spec.logParser}`,
    );
    if (!looksLikeDiff(patch)) {
      await log(`>>>>> Patch Apply Failed: ${NOT_A_DIFF}`);
      return done("patch_apply_failed", { error: NOT_A_DIFF });
    }
    const open = async () => prepare(await reopen(), spec);
    const opened = await open();
    await log(
      `environment: ${opened.handle.kind}; ${describeRun(opened)}; fingerprint ${opened.fingerprint.slice(0, 16)}`,
    );
    const { p, check, warnings, mismatch } = await checkEnvironment(opened, instance, spec, ctx, log, open);
    if (mismatch) return done(mismatch.outcome, mismatch.extra);
    const notApplied = await applyPatch(p, patch, ctx, log);
    if (notApplied) return done(notApplied.outcome, { ...notApplied.extra, check, warnings });
    const tested = await runTests(p, instance, spec, ctx, log);
    if ("outcome" in tested) return done(tested.outcome, { ...tested.extra, check, warnings });
    const graded = await grade(p, instance, spec, ctx, log, tested.output, check);
    return done(graded.outcome, { ...graded.extra, check, ...(warnings.length ? { warnings } : {}) });
  } catch (err) {
    const e = err as Error;
    const plain = e instanceof StepError || e instanceof ParserCrash || e instanceof PythonEnvError;
    const error = `${plain ? "" : "evaluation failed: "}${e.message}`;
    await log(error);
    return done("error", { error });
  } finally {
    await release();
  }
}
