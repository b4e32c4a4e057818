import { EXIT_STATUSES } from "../agent/trajectory-types.js";
import type { TaskOutcome } from "../task/outcome.js";
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
 * The row that counts infrastructure failures (`run.infra_retry`): their exit status is
 * EnvironmentError or ModelError, but the model did no work, so they are not counted as its failures.
 */
const INFRA_ROW = "infrastructure failure";

const INFRA_NOTE =
  `${INFRA_ROW}: the environment or the model server failed before the model's first reply, on every ` +
  "try (run.infra_retry); not the model's failure. exit_statuses.yaml lists them under their exit status; " +
  "run.json marks them `infrastructure: true`.";

/** What a result counts as in the tables: its exit status, or an infrastructure failure. */
const rowOf = (o: Pick<TaskOutcome, "exit_status" | "infrastructure">): string =>
  o.infrastructure ? INFRA_ROW : o.exit_status;

/** Rows of a counts table: per exit status, this run's, earlier runs' and both; then the totals. */
function countRows(now: Record<string, number>, earlier: Record<string, number>): string[][] {
  const rows: string[][] = [["exit status", "this run", "earlier", "total"]];
  let a = 0;
  let b = 0;
  for (const st of [...EXIT_STATUSES, INFRA_ROW]) {
    const x = now[st] ?? 0;
    const y = earlier[st] ?? 0;
    a += x;
    b += y;
    if (x + y > 0) rows.push([st, String(x), String(y), String(x + y)]);
  }
  rows.push(["total", String(a), String(b), String(a + b)]);
  return rows;
}

/** The rows as aligned text: a header, a rule, the rows. */
function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const fmt = (r: string[]) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  return [fmt(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(fmt)];
}

const tally = (statuses: Iterable<string>): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const st of statuses) out[st] = (out[st] ?? 0) + 1;
  return out;
};

/**
 * With several attempts per instance: the instances (each once, by the status of the attempt that
 * stands for it; "this run" when any of its attempts ended now) and the attempts (each once: those
 * ended now, those kept from earlier runs).
 */
function attemptTables(result: BatchResult, a: NonNullable<BatchResult["attempts"]>): string[] {
  const ranNow = new Set(result.outcomes.map((o) => o.instance_id));
  const infrastructure = new Set(result.infrastructure ?? []);
  const byNow: string[] = [];
  const byEarlier: string[] = [];
  let none = 0;
  for (const id of selectedIds(result)) {
    const st = result.statuses[id];
    if (st === undefined) none++;
    else (ranNow.has(id) ? byNow : byEarlier).push(infrastructure.has(id) ? INFRA_ROW : st);
  }
  const instances = countRows(tally(byNow), tally(byEarlier));
  if (none > 0) instances.push(["no result yet", "", "", String(none)]);
  const attempts = countRows(tally(result.outcomes.map(rowOf)), tally(Object.values(a.kept)));
  if (a.notStarted > 0) attempts.push(["not started", String(a.notStarted), "", ""]);
  const stopped = Object.keys(a.stopped).length;
  if (stopped > 0) attempts.push(["stopped by policy", String(stopped), "", ""]);
  return [
    "instances (each once: the status of the attempt that stands for it)",
    ...table(instances),
    "",
    `attempts (${a.perInstance} per instance, replacements included)`,
    ...table(attempts),
  ];
}

/** Every instance the result names, in a stable order. */
function selectedIds(result: BatchResult): string[] {
  const ids = new Set<string>([
    ...Object.keys(result.statuses),
    ...result.skipped,
    ...result.notStarted,
    ...result.pending,
    ...result.outcomes.map((o) => o.instance_id),
  ]);
  return [...ids];
}

/**
 * The table printed after a batch: per exit status, the instances that ended in this run, those
 * kept from earlier runs, and both (with attempts: a table of instances and one of attempts), with
 * infrastructure failures in a row of their own; then usage totals and, when it stopped early, why
 * and what to do.
 */
export function summaryTable(result: BatchResult, outputDir: string): string {
  const a = result.attempts;
  const lines: string[] = [];
  if (a) lines.push(...attemptTables(result, a));
  else {
    const earlier: string[] = [];
    for (const id of result.skipped) {
      const st = result.statuses[id];
      if (st) earlier.push(st);
    }
    const rows = countRows(tally(result.outcomes.map(rowOf)), tally(earlier));
    // the total of "earlier" counts every kept instance (one kept without a status counts too)
    rows[rows.length - 1] = [
      "total",
      String(result.outcomes.length),
      String(result.skipped.length),
      String(result.outcomes.length + result.skipped.length),
    ];
    if (result.notStarted.length > 0) rows.push(["not started", String(result.notStarted.length), "", ""]);
    lines.push(...table(rows));
  }
  if (lines.some((l) => l.startsWith(`${INFRA_ROW} `))) lines.push(INFRA_NOTE);
  const t = result.totals;
  // Only instances that are done count: those that must run again are not throughput.
  const pending = new Set(result.pending);
  const doneIds = new Set(
    result.outcomes.filter((o) => !pending.has(o.instance_id)).map((o) => o.instance_id),
  );
  const done = a ? doneIds.size : result.outcomes.filter((o) => !pending.has(o.instance_id)).length;
  const hours = result.wallSeconds / 3600;
  const perHour = (n: number) => (result.wallSeconds > 0 ? n / hours : 0).toFixed(1);
  const again = new Set(a?.again ?? []);
  const attemptsDone = result.outcomes.filter(
    (o) => !again.has(`${o.instance_id}/attempt-${o.attempt_number}`),
  ).length;
  const rate = a
    ? `${perHour(done)} instances/hour (${perHour(attemptsDone)} attempts/hour)`
    : `${perHour(done)} instances/hour`;
  lines.push(
    "",
    `model calls ${t.api_calls}, tokens ${formatCount(t.prompt_tokens)} in / ${formatCount(t.completion_tokens)} out, ` +
      `cost $${t.cost.toFixed(2)}, wall ${formatDuration(result.wallSeconds)}, ${rate}`,
    `results in ${outputDir} (preds.json, exit_statuses.yaml, run.json, run.log)`,
  );
  if (result.stoppedBy) {
    lines.push(
      `stopped early: ${STOP_TEXT[result.stoppedBy]} (finished ${a ? "attempts" : "instances"} are kept; Interrupted, ` +
        "EnvironmentError and ModelError-after-retries ones run again).",
    );
  } else if (result.pending.length > 0) {
    // not started without a stop: their jobs were taken off a queue (patchloop queue drain)
    const notStarted = new Set(result.notStarted);
    const ended = result.pending.filter((id) => !notStarted.has(id)).length;
    const never = result.pending.length - ended;
    if (ended > 0 && a)
      lines.push(
        `${ended} instance(s) must run again (${a.again.length} attempt(s) ended Interrupted, EnvironmentError, or ` +
          "ModelError after the server kept failing, with no replacement left): run the same command again; " +
          "it starts only those attempts.",
      );
    else if (ended > 0)
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
