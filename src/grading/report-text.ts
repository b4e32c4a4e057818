import { plural } from "../util/plural.js";
import type { Flips } from "./compare.js";
import type { RunSummary } from "./summary.js";

function pct(n: number, d: number): string {
  return d === 0 ? "0.0%" : `${((100 * n) / d).toFixed(1)}%`;
}

function list(title: string, ids: string[], detail?: Record<string, string>, indent = ""): string[] {
  if (ids.length === 0) return [];
  const lines = [`${indent}${title} (${ids.length}):`];
  for (const id of ids) {
    const why = detail?.[id]?.split("\n")[0];
    lines.push(why ? `${indent}  ${id}: ${why}` : `${indent}  ${id}`);
  }
  return lines;
}

/** What to do about the mismatches of a run, one line per kind of problem seen. */
export function mismatchAdvice(problems: string[]): string[] {
  const has = (re: RegExp) => problems.some((p) => re.test(p));
  const out: string[] = [];
  if (has(/outside the work tree/)) {
    out.push(
      "- The tests imported the repository's package from outside the work tree: put the work tree's code first " +
        "(for a src/ layout a --specs entry `local: {pythonpath: [src]}`), or use an interpreter without that copy " +
        "(--python VENV/bin/python).",
    );
  }
  if (has(/FAIL_TO_PASS tests pass without the patch/) && !has(/outside the work tree/)) {
    out.push(
      "- Tests the fix should make pass already pass: they ran against other code or package versions than the " +
        "harness's. env_check.json names the interpreter and where the package came from.",
    );
  }
  if (has(/PASS_TO_PASS tests fail without the patch/)) {
    out.push(
      "- Most tests that should pass fail before any patch: the installed packages differ from the versions the " +
        "harness pins (e.g. a newer werkzeug or pytest). Use an interpreter with those versions (--python " +
        "VENV/bin/python, or `local.venv` per repository in --specs), or grade in the instance images (--environment docker).",
    );
  }
  if (has(/PASS_TO_PASS tests did not run/)) {
    out.push(
      "- Tests that should pass never ran (no result in the log; nothing says they fail): look in " +
        "env_check_output.txt for a collection error or an ImportError in a test module (a module or package missing here), " +
        "compare the test ids the log prints with the row's (a parametrized id, a class prefix), and check the " +
        "test command selects those files (`test_cmd` in --specs).",
    );
  }
  if (has(/in the log the row's parser read/)) {
    out.push(
      "- A SWE-bench-Live row's tests gave no results: its own commands run as the row writes them, and on the host " +
        "nothing puts the package on the Python path (env_check_output.txt: an ImportError, a missing runner?). Grade it " +
        "in its image (--environment docker), where the row's environment is installed.",
    );
  }
  if (problems.some((p) => /gave no results/.test(p) && !/in the log the row's parser read/.test(p))) {
    out.push(
      "- The test run gave no results: env_check_output.txt shows why (often an import error from a package version " +
        "the harness does not use, or an interpreter without the test runner: `python3 -m pytest --version`); pass --python.",
    );
  }
  out.push("  See docs/grading.md. --no-check-env grades anyway (the grades may then be wrong).");
  return out;
}

/**
 * The printed end of `patchloop eval` and `swebench --evaluate`: resolved x/y (%) over what
 * `total_instances` counts (named), and over the instances with a prediction; the counts; the
 * environment check; a per-repository table; then empty patches, patches that failed to apply,
 * timeouts, environment mismatches (with how to fix them) and infrastructure errors, instances
 * whose log gave no test results, v5's infrastructure labels (each kept apart from unresolved),
 * unresolved instances, warnings, and the flips against `--compare`.
 */
export function formatRunReport(s: RunSummary, flips?: Flips & { against: string }): string {
  const out: string[] = [];
  const pl = s.patchloop;
  out.push(
    `Resolved ${s.resolved_instances}/${s.total_instances} (${pct(s.resolved_instances, s.total_instances)}) of ${pl.scope.description}`,
  );
  const submitted = s.submitted_ids.length;
  if (submitted !== s.total_instances) {
    out.push(
      `Resolved ${s.resolved_instances}/${submitted} (${pct(s.resolved_instances, submitted)}) of the instances with a prediction`,
    );
  }
  out.push(
    `completed ${s.completed_instances}, unresolved ${s.unresolved_instances}, empty patches ${s.empty_patch_instances}, ` +
      `errors ${s.error_instances} (patch did not apply ${pl.patch_apply_failed_ids.length}, ` +
      `timed out ${pl.timeout_ids.length}, no test results ${pl.no_results_ids.length}, ` +
      `environment mismatch ${pl.environment_mismatch_ids.length}, infrastructure ${pl.infrastructure_error_ids.length})`,
  );
  if (s.infra_failure_ids !== undefined) {
    out.push(
      `v5 infrastructure labels: environment ${s.infra_failure_instances ?? 0}, ambiguous ${s.ambiguous_failure_instances ?? 0} ` +
        "(advisory: they change no grade or count)",
    );
  }
  const c = pl.env_check;
  const notChecked = c.not_checked ? `, ${c.not_checked} not checked (see the warnings)` : "";
  out.push(
    c.enabled
      ? `environment check: on (${c.checked} checked, ${c.cached} from the cache, ${c.mismatches} mismatched${notChecked}); harness ${pl.harness_version} rules`
      : `environment check: OFF (${c.off ?? "not asked for"}): nothing tested that this environment grades like the harness's; harness ${pl.harness_version} rules`,
  );
  const repos = Object.entries(pl.per_repo);
  if (repos.length > 0) {
    const width = Math.max(10, ...repos.map(([r]) => r.length));
    out.push("", `${"repository".padEnd(width)}  resolved  total    rate`);
    for (const [repo, t] of repos) {
      out.push(
        `${repo.padEnd(width)}  ${String(t.resolved).padStart(8)}  ${String(t.total).padStart(5)}  ${pct(t.resolved, t.total).padStart(6)}`,
      );
    }
  }
  const e = pl.errors;
  const mismatches = list(
    "Environment mismatch: not graded, not counted as unresolved; the tests misbehave here without any patch",
    pl.environment_mismatch_ids,
    e,
  );
  if (mismatches.length > 0) {
    const withRan: string[] = [mismatches[0]];
    for (const id of pl.environment_mismatch_ids) {
      withRan.push(`  ${id}: ${e[id] ?? ""}`);
      if (pl.ran_with[id]) withRan.push(`    ran with ${pl.ran_with[id]}`);
    }
    withRan.push("How to fix:", ...mismatchAdvice(pl.environment_mismatch_ids.map((id) => e[id] ?? "")));
    mismatches.splice(0, mismatches.length, ...withRan);
  }
  const warned = Object.entries(pl.warnings ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const block of [
    list("Empty patches", s.empty_patch_ids),
    list("Patches that did not apply", pl.patch_apply_failed_ids, e),
    list("Timed out", pl.timeout_ids, e),
    mismatches,
    list("Infrastructure errors (not counted as unresolved)", pl.infrastructure_error_ids, e),
    list(
      "No test results: not graded, not counted as unresolved (the harness would count them unresolved)",
      pl.no_results_ids,
      e,
    ),
    list(
      "Infrastructure failures by v5's labels, environment to blame (advisory)",
      s.infra_failure_ids ?? [],
      s.failure_reasons,
    ),
    list(
      "Infrastructure failures by v5's labels, the environment or the patch (advisory)",
      s.ambiguous_failure_ids ?? [],
      s.failure_reasons,
    ),
    list("Unresolved", s.unresolved_ids, Object.fromEntries(Object.entries(pl.resolutions))),
    warned.length > 0 ? ["Warnings:", ...warned.flatMap(([id, ws]) => ws.map((w) => `  ${id}: ${w}`))] : [],
  ]) {
    if (block.length > 0) out.push("", ...block);
  }
  if (flips) {
    out.push("", `Compared with ${flips.against} (${plural(flips.common, "instance")} in both runs):`);
    out.push(
      ...(flips.nowResolved.length
        ? list("Now resolved", flips.nowResolved, undefined, "  ")
        : ["  Now resolved: none"]),
    );
    out.push(
      ...(flips.nowUnresolved.length
        ? list("No longer resolved", flips.nowUnresolved, undefined, "  ")
        : ["  No longer resolved: none"]),
    );
  }
  return `${out.join("\n")}\n`;
}
