import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
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
  /** PASS_TO_PASS tests that failed (or gave no result) without the model patch. */
  pass_to_pass_failing: string[];
  fail_to_pass_total: number;
  pass_to_pass_total: number;
  /** Parsed test results in the check's log. */
  results: number;
  /** A few PASS_TO_PASS tests fail (fewer than half): graded, with this warning. */
  drift?: string;
}

const PASSING = new Set(["PASSED", "XFAIL"]);

function shortList(names: string[], max = 5): string {
  const head = names.slice(0, max).join(", ");
  return names.length > max ? `${head} and ${names.length - max} more` : head;
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
    (text) => parseTestLog(spec.logParser, text, { harness, normalizeDjango: options.normalizeDjango }),
    harness,
  );
  verdict.results = map.size;
  if (!found || map.size === 0) {
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
    verdict.pass_to_pass_failing = spec.passToPass.filter((t) => {
      const s = status(t);
      if (spec.evalType === "fail_only") return s === "FAILED";
      return s === undefined || s === "FAILED" || s === "ERROR";
    });
    const f = verdict.fail_to_pass_passing;
    if (f.length > 0) {
      verdict.problems.push(
        `${f.length} of ${spec.failToPass.length} FAIL_TO_PASS tests pass without the patch: ${shortList(f)}`,
      );
    }
    const p = verdict.pass_to_pass_failing;
    if (p.length > 0 && p.length * 2 > spec.passToPass.length) {
      verdict.problems.push(
        `${p.length} of ${spec.passToPass.length} PASS_TO_PASS tests fail without the patch: ${shortList(p)}`,
      );
    } else if (p.length > 0) {
      verdict.drift = `${p.length} of ${spec.passToPass.length} PASS_TO_PASS tests fail here without any patch (${shortList(p)}): no patch can come out RESOLVED_FULL in this environment`;
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

/** The cache key of one instance in one environment: the fingerprint and the check's inputs. */
export function checkKey(
  fingerprint: string,
  instance: { instance_id: string; base_commit: string; test_patch?: unknown; eval_script?: unknown },
  spec: InstanceTestSpec,
  harness: HarnessVersion,
): string {
  return sha256(
    JSON.stringify({
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
