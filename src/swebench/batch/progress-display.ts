import { formatDuration, liveLines, plainLine } from "./progress-render.js";
import { type ProgressSnapshot, ProgressState } from "./progress-state.js";
import type { BatchEvent } from "./types.js";

/** Options of `createProgressDisplay`. */
export interface ProgressDisplayOptions {
  write: (text: string) => void;
  /** Redraw a block of lines in place (a terminal) or print plain lines (a pipe, a log). */
  tty: boolean;
  /** Terminal width; lines are cut to it so that the redraw stays aligned. */
  columns?: number;
  /** Milliseconds between redraws (tty, default 500) or between plain progress lines (default 30000). */
  intervalMs?: number;
}

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

/**
 * Shows a batch's progress. On a terminal: a block redrawn in place (done/total, rate, ETA, counts
 * per exit status, tokens, cost, running instances with their step), with one line per finished
 * instance scrolling above it. Elsewhere: one line per finished instance and a summary line every
 * `intervalMs`.
 */
export function createProgressDisplay(opts: ProgressDisplayOptions): ProgressDisplay {
  const state = new ProgressState();
  const columns = opts.columns ?? 120;
  let drawn = 0;
  const erase = () => {
    if (drawn > 0) opts.write(`${ESC}${drawn}F${ESC}J`);
    drawn = 0;
  };
  const draw = () => {
    const lines = liveLines(state.snapshot(), { color: true }).map((l) => cut(l, columns));
    erase();
    opts.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  const timer = setInterval(
    () => (opts.tty ? draw() : opts.write(`${plainLine(state.snapshot())}\n`)),
    opts.intervalMs ?? (opts.tty ? 500 : 30_000),
  );
  timer.unref();
  const print = (text: string) => {
    if (opts.tty) erase();
    opts.write(text.endsWith("\n") ? text : `${text}\n`);
    if (opts.tty) draw();
  };
  return {
    onEvent(event) {
      state.apply(event);
      if (event.type !== "instance_end" && event.type !== "stopping") return;
      const s = state.snapshot();
      const text =
        event.type === "stopping"
          ? `stopping (${event.reason}): no new instances start; waiting for the running ones`
          : `[${s.skipped + s.doneNow}/${s.total}] ${event.outcome.instance_id} ${event.outcome.exit_status} ` +
            `(${event.outcome.api_calls} steps, $${event.outcome.cost.toFixed(2)}, ${formatDuration(event.outcome.seconds)})`;
      print(text);
    },
    print,
    snapshot: () => state.snapshot(),
    stop() {
      clearInterval(timer);
      if (opts.tty) erase();
    },
  };
}
