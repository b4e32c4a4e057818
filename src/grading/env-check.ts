import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-write.js";
import { resolveCase, statusMapFromLog } from "./grading.js";
import { type HarnessVersion, parseTestLog } from "./parsers/index.js";
import type { PythonProbe } from "./python-env.js";
import type { InstanceTestSpec } from "./test-spec.js";

/**
 * The environment check: before a prediction is graded, the instance's tests run at the base
 * commit with the test patch and without the model patch. In the harness's environment the
 * FAIL_TO_PASS tests fail there and the PASS_TO_PASS tests pass; an environment where that is not
 * so cannot grade the instance (a no-op patch could come out resolved, a gold patch unresolved).
 */

/** `ok`: the tests behave as in the harness; `mismatch`: they do not (not graded); `timeout`: the check ran out of time (graded anyway). */
export type EnvCheckStatus = "ok" | "mismatch" | "timeout";

/** What the check found. */
export interface EnvCheckVerdict {
  status: EnvCheckStatus;
  /** One sentence per thing that was wrong (empty when `ok`). */
  problems: string[];
  /** FAIL_TO_PASS tests that passed without the model patch. */
  fail_to_pass_passing: string[];
  /** PASS_TO_PASS tests that failed (or errored) without the model patch. */
  pass_to_pass_failing: string[];
  /**
   * PASS_TO_PASS tests with no result in the log: they did not run (a collection error, a test
   * module that fails to import, an id the parser names otherwise, a test command that does not
   * select them). The harness grades these as failing too.
   */
  pass_to_pass_not_run: string[];
  fail_to_pass_total: number;
  pass_to_pass_total: number;
  /** Parsed test results in the check's log. */
  results: number;
  /**
   * Graded, with this warning: a few PASS_TO_PASS tests fail or did not run (at most half), or the
   * run gave no results where every test is FAIL_TO_PASS (nothing to check the environment with).
   */
  drift?: string;
}

const PASSING = new Set(["PASSED", "XFAIL"]);

function shortList(names: string[], max = 5): string {
  const head = names.slice(0, max).join(", ");
  return names.length > max ? `${head} and ${names.length - max} more` : head;
}

/** What a PASS_TO_PASS test without a result usually means. */
const NOT_RUN_CAUSES =
  "usually a collection error or a test module that fails to import, a test id the log parser names " +
  "differently, or a test command that does not select them; env_check_output.txt shows which";

/** One sentence for the failed PASS_TO_PASS tests and one for those that did not run (each when any). */
export function passToPassSentences(v: EnvCheckVerdict, total: number): string[] {
  const out: string[] = [];
  const failed = v.pass_to_pass_failing;
  const notRun = v.pass_to_pass_not_run;
  if (failed.length > 0) {
    out.push(`${failed.length} of ${total} PASS_TO_PASS tests fail without the patch: ${shortList(failed)}`);
  }
  if (notRun.length > 0) {
    out.push(
      `${notRun.length} of ${total} PASS_TO_PASS tests did not run without the patch (no result in the test log: ` +
        `never run, not failed): ${shortList(notRun)}; ${NOT_RUN_CAUSES}`,
    );
  }
  return out;
}

/**
 * Judges the check's log: no results at all, any FAIL_TO_PASS test passing, more than half of
 * the PASS_TO_PASS tests failing, or the repository's package imported from outside the work
 * tree (from `probe`) each make a mismatch.
 */
export function judgeCheck(
  log: string,
  spec: InstanceTestSpec,
  harness: HarnessVersion,
  probe: PythonProbe | undefined,
  options: { normalizeDjango?: boolean; timedOut?: boolean } = {},
): EnvCheckVerdict {
  const verdict: EnvCheckVerdict = {
    status: "ok",
    problems: [],
    fail_to_pass_passing: [],
    pass_to_pass_failing: [],
    pass_to_pass_not_run: [],
    fail_to_pass_total: spec.failToPass.length,
    pass_to_pass_total: spec.passToPass.length,
    results: 0,
  };
  const pkg = probe?.package;
  if (pkg?.file && !pkg.inside_work_tree) {
    verdict.problems.push(
      `${pkg.name} is imported from ${pkg.file}, outside the work tree: the tests would grade that copy, not the patched code`,
    );
  }
  if (options.timedOut) {
    verdict.status = verdict.problems.length > 0 ? "mismatch" : "timeout";
    return verdict;
  }
  const { found, reason, map } = statusMapFromLog(
    log,
    (text) =>
      parseTestLog(spec.logParser, text, {
        harness,
        normalizeDjango: options.normalizeDjango,
        context: spec.parserContext,
      }),
    harness,
  );
  verdict.results = map.size;
  if ((!found || map.size === 0) && spec.passToPass.length === 0 && spec.failToPass.length > 0) {
    // Every test is FAIL_TO_PASS: the harness's own run without the fix gave it none of them either
    // (new test files, or a test file that cannot load without a dependency the fix adds, as in
    // axios__axios-5316). Nothing here says the environment differs; a runner that is missing
    // shows again in the graded run, which then has no results.
    verdict.drift =
      "the tests gave no results without the patch, as expected when every test is FAIL_TO_PASS " +
      "(no PASS_TO_PASS tests to check the environment with); graded";
  } else if (!found || map.size === 0) {
    verdict.problems.push(
      `the tests gave no results without the patch (${reason ?? "the log parser found no test lines"}): ` +
        "the run stopped before any test (a missing test runner, an import error from a package version?); env_check_output.txt shows why",
    );
  } else {
    const status = (name: string) => {
      const key = harness === "5" ? resolveCase(name, map) : name;
      return key === undefined ? undefined : map.get(key);
    };
    verdict.fail_to_pass_passing = spec.failToPass.filter((t) => PASSING.has(status(t) ?? ""));
    for (const t of spec.passToPass) {
      const s = status(t);
      if (s === "FAILED" || (spec.evalType !== "fail_only" && s === "ERROR"))
        verdict.pass_to_pass_failing.push(t);
      // A fail_only instance grades a test without a result as passing, as the harness does.
      else if (s === undefined && spec.evalType !== "fail_only") verdict.pass_to_pass_not_run.push(t);
    }
    const f = verdict.fail_to_pass_passing;
    if (f.length > 0) {
      verdict.problems.push(
        `${f.length} of ${spec.failToPass.length} FAIL_TO_PASS tests pass without the patch: ${shortList(f)}`,
      );
    }
    const sentences = passToPassSentences(verdict, spec.passToPass.length);
    const bad = verdict.pass_to_pass_failing.length + verdict.pass_to_pass_not_run.length;
    if (bad * 2 > spec.passToPass.length) verdict.problems.push(...sentences);
    else if (bad > 0) {
      verdict.drift = `${sentences.join("; ")}; graded, but no patch can come out RESOLVED_FULL in this environment`;
    }
  }
  if (verdict.problems.length > 0) verdict.status = "mismatch";
  return verdict;
}

/** One cached check: the verdict and what it was made with. */
export interface CachedCheck {
  instance_id: string;
  /** The environment fingerprint the check ran in. */
  fingerprint: string;
  /** sha256 of the fingerprint and everything about the instance that the check depends on. */
  key: string;
  checked_at: string;
  verdict: EnvCheckVerdict;
  /** The interpreter that ran the tests, when there was one. */
  python: { executable: string; version: string } | null;
}

/**
 * Where checks are cached: `$PATCHLOOP_ENV_CHECK_CACHE`, else `$XDG_CACHE_HOME/patchloop/env-checks`,
 * else `~/.cache/patchloop/env-checks` (one folder per instance, one file per environment).
 */
export function defaultEnvCheckCacheDir(): string {
  if (process.env.PATCHLOOP_ENV_CHECK_CACHE) return process.env.PATCHLOOP_ENV_CHECK_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "patchloop", "env-checks");
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * The fingerprint of an environment: its kind and image, the platform, and what the interpreter
 * reported (executable, version, installed distributions), plus the environment lines with the
 * per-run folders written as placeholders. Two runs in the same environment get the same one.
 */
export function environmentFingerprint(parts: {
  kind: string;
  image?: string;
  platform?: string;
  lines: string[];
  probe?: PythonProbe;
}): string {
  return sha256(
    JSON.stringify({
      kind: parts.kind,
      image: parts.image ?? null,
      platform: parts.platform ?? null,
      lines: parts.lines,
      python: parts.probe
        ? {
            executable: parts.probe.executable,
            version: parts.probe.version,
            distributions: parts.probe.distributions,
          }
        : null,
    }),
  );
}

/**
 * The version of judgeCheck's rules, part of every cache key: a verdict cached under older rules
 * (2: PASS_TO_PASS tests without a result are "did not run", apart from failures; 3: no results
 * without the patch is no mismatch when every test is FAIL_TO_PASS) is judged again.
 */
const JUDGE_RULES = 3;

/** The cache key of one instance in one environment: the fingerprint, the check's inputs and the rules' version. */
export function checkKey(
  fingerprint: string,
  instance: { instance_id: string; base_commit: string; test_patch?: unknown; eval_script?: unknown },
  spec: InstanceTestSpec,
  harness: HarnessVersion,
): string {
  return sha256(
    JSON.stringify({
      rules: JUDGE_RULES,
      fingerprint,
      harness,
      instance_id: instance.instance_id,
      base_commit: instance.base_commit,
      test_patch: instance.test_patch ?? null,
      eval_script: instance.eval_script ?? null,
      spec: {
        testCommand: spec.testCommand,
        evalCommands: spec.evalCommands,
        logParser: spec.logParser,
        evalType: spec.evalType,
        failToPass: spec.failToPass,
        passToPass: spec.passToPass,
      },
    }),
  );
}

function cacheFile(dir: string, instanceId: string, key: string): string {
  return join(dir, instanceId.replace(/[^\w.-]/g, "_"), `${key.slice(0, 32)}.json`);
}

/** The cached check of (instance, key), or undefined; an unreadable file counts as absent. */
export async function readCachedCheck(
  dir: string,
  instanceId: string,
  key: string,
): Promise<{ check: CachedCheck; log: string } | undefined> {
  const file = cacheFile(dir, instanceId, key);
  try {
    const check = JSON.parse(await readFile(file, "utf8")) as CachedCheck;
    if (check.key !== key || !check.verdict) return undefined;
    const log = await readFile(file.replace(/\.json$/, ".log"), "utf8").catch(() => "");
    return { check, log };
  } catch {
    return undefined;
  }
}

/** Stores a check (its log beside it); the JSON file is written last, so it is whole when present. */
export async function writeCachedCheck(dir: string, check: CachedCheck, log: string): Promise<string> {
  const file = cacheFile(dir, check.instance_id, check.key);
  await writeFileAtomic(file.replace(/\.json$/, ".log"), log);
  await writeFileAtomic(file, `${JSON.stringify(check, null, 2)}\n`);
  return file;
}
