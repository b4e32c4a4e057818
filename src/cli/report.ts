import type { Command } from "commander";
import { guarded } from "./guarded.js";

interface ReportOptions {
  json?: boolean;
  dataset?: string;
  leaderboard?: string;
}

/**
 * `patchloop report DIR [--json] [--dataset FILE]`: a run folder as people write it up (docs/report.md):
 * resolved overall, per repository and difficulty, where each instance ended, the patch's files beside
 * the gold patch's, steps, tokens, time and cost, attempts, where it stands on the public leaderboard of
 * its dataset (a dated snapshot). Exit 2 when DIR is not a run folder.
 */
export function register(program: Command): void {
  program
    .command("report")
    .description("Report a run folder: resolved, per repository, where each instance ended, usage (Markdown)")
    .argument(
      "<dir>",
      "a run folder (patchloop swebench -o DIR, graded with patchloop eval; or patchloop demo -o DIR)",
    )
    .option("--json", "print the report as JSON (fields in docs/report.md)")
    .option(
      "--dataset <FILE>",
      "the dataset rows (gold patches, difficulty) when run.json's cannot be read here",
    )
    .option(
      "--leaderboard <BOARD>",
      "the leaderboard to place the run on (lite or verified) when its dataset is a file of that split's rows",
    )
    .action((dir: string, opts: ReportOptions) => guarded(() => reportCommand(dir, opts), REPORT_INPUT));
}

/** What `report` says of a folder, a dataset or a flag it cannot use (exit status 2). */
class ReportInputError extends Error {}
const REPORT_INPUT = { classes: [ReportInputError], prefix: "patchloop report: " };

async function reportCommand(dir: string, opts: ReportOptions): Promise<number> {
  const { collectRun } = await import("../report/collect.js");
  const { buildReport } = await import("../report/build.js");
  const { renderReport } = await import("../report/render.js");
  const { loadDataset } = await import("../dataset/load.js");
  const { BOARDS, readLeaderboardSnapshot } = await import("../report/leaderboard.js");
  const board = BOARDS.find((b) => b === opts.leaderboard) ?? null;
  if (opts.leaderboard !== undefined && !board)
    throw new ReportInputError(
      `--leaderboard ${opts.leaderboard}: not a leaderboard of the snapshot; use one of ${BOARDS.join(", ")}`,
    );
  let report: ReturnType<typeof buildReport>;
  try {
    const run = await collectRun(
      dir,
      (name, split) => loadDataset({ subset: name, ...(split ? { split } : {}) }),
      opts.dataset,
    );
    report = buildReport(run, { snapshot: readLeaderboardSnapshot(), board });
  } catch (err) {
    throw new ReportInputError((err as Error).message);
  }
  process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
  return 0;
}
