import { EXIT_STATUSES } from "../../agent/trajectory-types.js";
import { formatCount, formatDuration } from "./progress-render.js";
import type { BatchResult } from "./types.js";

/** Why the batch stopped early, and what to do about it. */
const STOP_TEXT: Record<string, string> = {
  interrupted: "interrupted. Run the same command again to continue",
  cost_limit:
    "the global cost limit (--cost-limit, over every instance of the folder) was reached. To continue, " +
    "run the same command again with a higher --cost-limit",
  call_limit:
    "the global call limit (--call-limit, over every instance of the folder) was reached. To continue, " +
    "run the same command again with a higher --call-limit",
  model_unavailable:
    "the model server kept failing: several instances in a row ran out of retries (see run.log). Check " +
    "the server, then run the same command again to continue",
};

/**
 * The table printed after a batch: per exit status, the instances that ended in this run, those
 * kept from earlier runs, and both; then usage totals and, when it stopped early, why and what to do.
 */
export function summaryTable(result: BatchResult, outputDir: string): string {
  const now: Record<string, number> = {};
  for (const o of result.outcomes) now[o.exit_status] = (now[o.exit_status] ?? 0) + 1;
  const earlier: Record<string, number> = {};
  for (const id of result.skipped) {
    const st = result.statuses[id];
    if (st) earlier[st] = (earlier[st] ?? 0) + 1;
  }
  const rows: string[][] = [["exit status", "this run", "earlier", "total"]];
  for (const st of EXIT_STATUSES) {
    const a = now[st] ?? 0;
    const b = earlier[st] ?? 0;
    if (a + b > 0) rows.push([st, String(a), String(b), String(a + b)]);
  }
  rows.push([
    "total",
    String(result.outcomes.length),
    String(result.skipped.length),
    String(result.outcomes.length + result.skipped.length),
  ]);
  if (result.notStarted.length > 0) rows.push(["not started", String(result.notStarted.length), "", ""]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  const lines = [fmt(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(fmt)];
  const t = result.totals;
  // Only instances that are done count: those that must run again are not throughput.
  const pending = new Set(result.pending);
  const done = result.outcomes.filter((o) => !pending.has(o.instance_id)).length;
  const perHour = result.wallSeconds > 0 ? (done / result.wallSeconds) * 3600 : 0;
  lines.push(
    "",
    `model calls ${t.api_calls}, tokens ${formatCount(t.prompt_tokens)} in / ${formatCount(t.completion_tokens)} out, ` +
      `cost $${t.cost.toFixed(2)}, wall ${formatDuration(result.wallSeconds)}, ${perHour.toFixed(1)} instances/hour`,
    `results in ${outputDir} (preds.json, exit_statuses.yaml, run.json, run.log)`,
  );
  if (result.stoppedBy) {
    lines.push(
      `stopped early: ${STOP_TEXT[result.stoppedBy]} (finished instances are kept; Interrupted, ` +
        "EnvironmentError and ModelError-after-retries ones run again).",
    );
  } else if (result.pending.length > 0) {
    // not started without a stop: their jobs were taken off a queue (patchloop queue drain)
    const notStarted = new Set(result.notStarted);
    const ended = result.pending.filter((id) => !notStarted.has(id)).length;
    const never = result.pending.length - ended;
    if (ended > 0)
      lines.push(
        `${ended} instance(s) must run again (Interrupted, EnvironmentError, or ModelError ` +
          "after the server kept failing): run the same command again.",
      );
    if (never > 0)
      lines.push(
        `${never} instance(s) did not start: their jobs were removed from the queue (patchloop queue drain); ` +
          "run the same command again to run them.",
      );
  }
  return `${lines.join("\n")}\n`;
}
