/**
 * v5's after-the-fact labels for runs that gave no usable results (`infra_failure.py`): the first
 * signature that matches the instance's logs names a reason, and its tier says whether the
 * environment is to blame for certain (`environment`: nothing a patch to the repository can cause)
 * or maybe (`ambiguous`). The labels are advisory: they never change a grade or a denominator.
 */

/** `environment`: the environment broke; `ambiguous`: the environment or the patch. */
export type InfraTier = "environment" | "ambiguous";

/** The signatures in the harness's order; the first hit wins. */
export const INFRA_SIGNATURES: ReadonlyArray<{ reason: string; tier: InfraTier; pattern: RegExp }> = [
  {
    reason: "browser_launch_failed",
    tier: "environment",
    pattern: /Failed to launch|Failed to connect to the bus/m,
  },
  {
    reason: "display_unavailable",
    tier: "environment",
    pattern: /cannot open display|Missing X server|unable to open X display/m,
  },
  {
    reason: "out_of_memory",
    tier: "environment",
    pattern: /Cannot allocate memory|OutOfMemoryError|^Killed$/m,
  },
  {
    reason: "container_unavailable",
    tier: "environment",
    pattern: /Error response from daemon|Cannot connect to the Docker daemon/m,
  },
  {
    reason: "network_unreachable",
    tier: "environment",
    pattern: /Could not resolve host|Temporary failure in name resolution/m,
  },
  {
    reason: "missing_module",
    tier: "ambiguous",
    pattern: /Cannot find module|MODULE_NOT_FOUND|ModuleNotFoundError/m,
  },
  { reason: "no_tests_collected", tier: "ambiguous", pattern: /no tests ran|collected 0 items/m },
  { reason: "tests_timed_out", tier: "ambiguous", pattern: /Timeout error: \d+ seconds exceeded/m },
];

/** The label of a log text (the instance's logs joined by newlines), or undefined. */
export function classifyInfraFailure(text: string): { reason: string; tier: InfraTier } | undefined {
  if (!text) return undefined;
  const hit = INFRA_SIGNATURES.find((s) => s.pattern.test(text));
  return hit ? { reason: hit.reason, tier: hit.tier } : undefined;
}
