import pc from "picocolors";
import { EXIT_STATUSES } from "../agent/trajectory-types.js";
import type { ProgressSnapshot } from "./progress-state.js";

/** `42s`, `3m05s`, `2h03m`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** `950`, `12.3k`, `4.56M`. */
export function formatCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

function statusCounts(s: ProgressSnapshot, color: boolean): string {
  const c = pc.createColors(color);
  const parts = EXIT_STATUSES.filter((st) => s.counts[st]).map((st) => {
    const text = `${st} ${s.counts[st]}`;
    return st === "Submitted" ? c.green(text) : c.yellow(text);
  });
  if (parts.length === 0)
    return s.unit === "attempts" ? "no attempt finished yet" : "no instance finished yet";
  return s.unit === "attempts" ? `attempts: ${parts.join("  ")}` : parts.join("  ");
}

function headline(s: ProgressSnapshot): string {
  const done = s.skipped + s.doneNow;
  const per = s.unit === "attempts" ? "attempts/h" : "inst/h";
  const rate = s.perHour > 0 ? `${s.perHour.toFixed(1)} ${per}` : `- ${per}`;
  const eta = s.etaSeconds === null ? "ETA -" : `ETA ${formatDuration(s.etaSeconds)}`;
  const skipped = s.skipped > 0 ? ` (${s.skipped} from earlier runs)` : "";
  const what = s.unit === "attempts" ? " attempts" : "";
  return `${done}/${s.total}${what} done${skipped}  ${s.running.length} running  ${rate}  ${eta}  elapsed ${formatDuration(s.elapsedSeconds)}`;
}

function usage({ totals: t }: ProgressSnapshot): string {
  return `tokens ${formatCount(t.prompt_tokens)} in / ${formatCount(t.completion_tokens)} out  ${t.api_calls} calls  $${t.cost.toFixed(2)}`;
}

/** `workers 3 (40 slots, 31 running): gpu-a:4121 16/16, gpu-b:977 15/16, ...` for a queue run; null otherwise. */
export function workersText(s: ProgressSnapshot, max = 4): string | null {
  if (!s.workers) return null;
  const slots = s.workers.reduce((n, w) => n + w.slots, 0);
  const busy = s.workers.reduce((n, w) => n + w.running, 0);
  if (s.workers.length === 0) return "workers 0: none is connected to the queue yet (start patchloop worker)";
  const each = s.workers.slice(0, max).map((w) => `${w.host}:${w.pid} ${w.running}/${w.slots}`);
  if (s.workers.length > max) each.push(`... and ${s.workers.length - max} more`);
  return `workers ${s.workers.length} (${slots} slots, ${busy} running): ${each.join(", ")}`;
}

/** The lines redrawn on a terminal: totals, statuses, usage, then the running instances (at most `maxRunning`). */
export function liveLines(
  s: ProgressSnapshot,
  opts: { color?: boolean; maxRunning?: number; now?: number } = {},
): string[] {
  const c = pc.createColors(opts.color ?? false);
  const max = opts.maxRunning ?? 8;
  const now = opts.now ?? Date.now();
  const lines = [c.bold(headline(s)), statusCounts(s, opts.color ?? false), usage(s)];
  const workers = workersText(s);
  if (workers) lines.push(workers);
  if (s.stopping)
    lines.push(c.red(`stopping (${s.stopping}): no new instances; waiting for the running ones`));
  const width = Math.max(0, ...s.running.slice(0, max).map((r) => r.id.length));
  for (const r of s.running.slice(0, max)) {
    const retry = r.retry ? `  ${c.yellow(retryText(r.retry, now))}` : "";
    const on = r.worker ? `  on ${r.worker}` : "";
    lines.push(
      `  ${r.id.padEnd(width)}  step ${String(r.step).padStart(3)}  ${formatDuration((now - r.startedAt) / 1000)}${on}${retry}`,
    );
  }
  if (s.running.length > max) lines.push(`  ... and ${s.running.length - max} more`);
  return lines;
}

/** `model retry 2/6 in 12s: HTTP 503: overloaded` (the time left until the next try). */
export function retryText(
  r: { until: number; tryNumber: number; maxTries: number; reason: string },
  now = Date.now(),
): string {
  const reason = r.reason.replace(/\s+/g, " ").trim();
  const short = reason.length > 80 ? `${reason.slice(0, 79)}…` : reason;
  return `model retry ${r.tryNumber + 1}/${r.maxTries} in ${formatDuration(Math.max(0, (r.until - now) / 1000))}: ${short}`;
}

/** One line for logs and pipes (no colours, no cursor movement). */
export function plainLine(s: ProgressSnapshot): string {
  const statuses = EXIT_STATUSES.filter((st) => s.counts[st])
    .map((st) => `${st}=${s.counts[st]}`)
    .join(" ");
  const stop = s.stopping ? ` | stopping: ${s.stopping}` : "";
  const workers = workersText(s, 0);
  return `[progress] ${headline(s)} | ${statuses || "none finished"} | ${usage(s)}${workers ? ` | ${workers.replace(/: .*$/, "")}` : ""}${stop}`;
}
