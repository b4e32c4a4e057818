import type { Command } from "commander";
import { compareRuns } from "../compare/compare-runs.js";
import { CompareInputError, loadRun, type RunVerdicts } from "../compare/load-run.js";
import { renderComparison } from "../compare/render.js";
import { BOOTSTRAP_DEFAULTS } from "../compare/stats.js";
import { guarded } from "./guarded.js";

interface CompareOptions {
  json?: boolean;
  missing: string;
  seed?: string;
  resamples?: string;
}

function wholeNumber(text: string | undefined, flag: string, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min)
    throw new CompareInputError(
      `${flag} takes a whole number of at least ${min}, got ${JSON.stringify(text)}`,
    );
  return Number(text);
}

/** Gives runs with the same name a `#2`, `#3` suffix, so that tables and JSON keys stay apart. */
function uniqueNames(runs: RunVerdicts[]): void {
  const seen = new Map<string, number>();
  for (const r of runs) {
    const k = (seen.get(r.name) ?? 0) + 1;
    seen.set(r.name, k);
    if (k > 1) r.name = `${r.name}#${k}`;
  }
}

/**
 * `patchloop compare RUN RUN [RUN...] [--json] [--missing exclude|unresolved] [--seed N]
 * [--resamples N]`: whether the difference between runs is real (docs/compare.md). Exit 2 when a
 * RUN cannot be read or a flag is wrong.
 */
export function register(program: Command): void {
  program
    .command("compare")
    .description(
      "Compare runs: resolved counts, flips, exact McNemar test, bootstrap interval, per repository",
    )
    .argument(
      "<runs...>",
      "two or more: run folders (graded with patchloop eval), eval or harness run summaries (<model>.<run_id>.json), SWE-bench/experiments results.json",
    )
    .option("--json", "print the comparison as JSON (fields in docs/compare.md)")
    .option(
      "--missing <policy>",
      "exclude: leave out instances a run lacks or could not grade (shown apart); unresolved: count them as unresolved",
      "exclude",
    )
    .option("--seed <N>", `seed of the bootstrap (default ${BOOTSTRAP_DEFAULTS.seed})`)
    .option("--resamples <N>", `bootstrap resamples (default ${BOOTSTRAP_DEFAULTS.resamples})`)
    .action((paths: string[], opts: CompareOptions) =>
      guarded(
        async () => {
          if (paths.length < 2)
            throw new CompareInputError(
              `needs two runs or more to compare, got ${paths.length}: ${paths.join(" ")}`,
            );
          if (opts.missing !== "exclude" && opts.missing !== "unresolved")
            throw new CompareInputError(
              `--missing takes exclude or unresolved, got ${JSON.stringify(opts.missing)}`,
            );
          const bootstrap = {
            ...BOOTSTRAP_DEFAULTS,
            seed: wholeNumber(opts.seed, "--seed", BOOTSTRAP_DEFAULTS.seed, 0),
            resamples: wholeNumber(opts.resamples, "--resamples", BOOTSTRAP_DEFAULTS.resamples, 1),
          };
          const runs = paths.map(loadRun);
          uniqueNames(runs);
          const result = compareRuns(runs, { missing: opts.missing, bootstrap });
          process.stdout.write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderComparison(result));
          return 0;
        },
        { classes: [CompareInputError], prefix: "patchloop compare: " },
      ),
    );
}
