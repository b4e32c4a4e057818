import { infraNote } from "../task/infra-retry.js";
import { formatDuration, liveLines, plainLine, retryText } from "./progress-render.js";
import { type ProgressSnapshot, ProgressState } from "./progress-state.js";
import type { BatchEvent, TaskOutcome } from "./types.js";

/** Options of `createProgressDisplay`. */
export interface ProgressDisplayOptions {
  write: (text: string) => void;
  /** Redraw a block of lines in place (a terminal) or print plain lines (a pipe, a log). */
  tty: boolean;
  /**
   * Terminal width; lines are cut to it so that the redraw stays aligned. A function is asked at
   * every redraw, so the block follows a resized terminal.
   */
  columns?: number | (() => number | undefined);
  /** Milliseconds between redraws (tty, default 500) or between plain progress lines (default 30000). */
  intervalMs?: number;
  /** The clock and the timer of the redraws; default the system's (tests move both by hand). */
  clock?: DisplayClock;
}

/** The time a progress display reads and the timer that redraws it. */
export interface DisplayClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `tick` every `ms` milliseconds until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

const SYSTEM_CLOCK: DisplayClock = {
  now: Date.now,
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** The live progress of a batch: feed it the batch's events; `stop` erases the block (tty) and ends the timer. */
export interface ProgressDisplay {
  onEvent(event: BatchEvent): void;
  /** Prints a line (e.g. a warning) above the live block, which is then redrawn. */
  print(text: string): void;
  snapshot(): ProgressSnapshot;
  stop(): void;
}

const ESC = "\x1b[";

function cut(line: string, columns: number): string {
  // Escape sequences take no room; count only visible characters.
  let visible = 0;
  let out = "";
  for (let i = 0; i < line.length; i++) {
    if (line[i] === "\x1b") {
      const end = line.indexOf("m", i);
      if (end > 0) {
        out += line.slice(i, end + 1);
        i = end;
        continue;
      }
    }
    if (visible >= columns - 1) break;
    out += line[i];
    visible++;
  }
  return out;
}

/** Exit statuses whose line also says why (the reason is otherwise only in run.log). */
const EXPLAINED = new Set(["ModelError", "EnvironmentError", "RepeatedFormatError"]);

/**
 * The line printed when an instance ends: `[done/total] id status (calls, cost, time)[: why]`; an
 * attempt's: `[done/total attempts] id attempt k status (...)[: why][; attempt m replaces it]`.
 * An infrastructure failure says so and how many runs it had after why (`: why (infrastructure
 * failure, 3 tries)`); a task that ended otherwise after retries says `after N infrastructure retries`.
 */
export function endLine(
  o: TaskOutcome,
  done: number,
  total: number,
  more: { replacedBy?: number } = {},
): string {
  const calls = `${o.api_calls} call${o.api_calls === 1 ? "" : "s"}`;
  const counter = o.attempt_number === undefined ? `[${done}/${total}]` : `[${done}/${total} attempts]`;
  const unit =
    o.attempt_number === undefined ? o.instance_id : `${o.instance_id} attempt ${o.attempt_number}`;
  const head = `${counter} ${unit} ${o.exit_status} (${calls}, $${o.cost.toFixed(2)}, ${formatDuration(o.seconds)})`;
  const replaced =
    more.replacedBy === undefined
      ? ""
      : `; attempt ${more.replacedBy} replaces it (run.attempt_policy.replace_failed)`;
  const infra = infraNote(o);
  if (!EXPLAINED.has(o.exit_status) || !o.exit_message)
    return `${head}${infra && !o.infrastructure ? ` ${infra}` : ""}${replaced}`;
  const why = o.exit_message.replace(/\s+/g, " ").trim();
  return `${head}: ${why.length > 200 ? `${why.slice(0, 199)}…` : why}${infra ? ` (${infra})` : ""}${replaced}`;
}

/**
 * Shows a batch's progress. On a terminal: a block redrawn in place (done/total, rate, ETA, counts
 * per exit status, tokens, cost, running instances with their step), with one line per finished
 * instance scrolling above it. Elsewhere: one line per finished instance and a summary line every
 * `intervalMs`.
 */
export function createProgressDisplay(opts: ProgressDisplayOptions): ProgressDisplay {
  const clock = opts.clock ?? SYSTEM_CLOCK;
  const state = new ProgressState({ now: () => clock.now() });
  // A terminal that reports no width (0: a pty of `script`, some CI consoles) gets 120.
  const width = () => (typeof opts.columns === "function" ? opts.columns() : opts.columns) || 120;
  let drawn = 0;
  const erase = () => {
    if (drawn > 0) opts.write(`${ESC}${drawn}F${ESC}J`);
    drawn = 0;
  };
  const draw = () => {
    const columns = width();
    const lines = liveLines(state.snapshot(), { color: true, now: clock.now() }).map((l) => cut(l, columns));
    erase();
    opts.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  const endTimer = clock.every(opts.intervalMs ?? (opts.tty ? 500 : 30_000), () =>
    opts.tty ? draw() : opts.write(`${plainLine(state.snapshot())}\n`),
  );
  let stopped = false;
  // Instances whose attempts the policy stopped (said once each).
  const policyStops = new Set<string>();
  const print = (text: string) => {
    const live = opts.tty && !stopped;
    if (live) erase();
    opts.write(text.endsWith("\n") ? text : `${text}\n`);
    if (live) draw();
  };
  // Policy lines waiting for the end line they follow.
  let held: string[] = [];
  const flushHeld = () => {
    const lines = held;
    held = [];
    for (const l of lines) print(l);
  };
  return {
    onEvent(event) {
      state.apply(event);
      // Off a terminal, each retry wait is a line of its own (on one, the running instance's line shows it).
      if (!opts.tty && event.type === "agent" && event.event.type === "model_retry") {
        const e = event.event;
        opts.write(
          `[retry] ${event.instance_id} step ${e.step}: ${retryText({ until: clock.now() + e.waitSeconds * 1000, tryNumber: e.tryNumber, maxTries: e.maxTries, reason: e.reason }, clock.now())}\n`,
        );
        return;
      }
      if (event.type === "attempt_skipped") {
        if (policyStops.has(event.instance_id)) return;
        policyStops.add(event.instance_id);
        // held until the end line of the attempt that stopped them is printed (the batch sends the
        // stop first, so that the end line's total already leaves the stopped attempts out)
        held.push(`${event.instance_id}: no further attempt starts: ${event.reason}`);
        return;
      }
      if (event.type !== "instance_end") flushHeld();
      if (event.type !== "instance_end" && event.type !== "stopping") return;
      const s = state.snapshot();
      const text =
        event.type === "stopping"
          ? `stopping (${event.reason}): no new ${s.unit} start; waiting for the running ones`
          : endLine(event.outcome, s.skipped + s.doneNow, s.total, { replacedBy: event.replacedBy });
      print(text);
      flushHeld();
    },
    print,
    snapshot: () => state.snapshot(),
    stop() {
      flushHeld();
      stopped = true;
      endTimer();
      if (opts.tty) erase();
    },
  };
}
