import pc from "picocolors";
import type { AgentEvent } from "../agent/agent.js";
import { textOf } from "../agent/protocols/types.js";
import { neutralize } from "../util/terminal-text.js";

/** Shortened to `max` characters, then made safe for the terminal (no control sequence gets through). */
const clip = (s: string, max: number) =>
  neutralize(s.length > max ? `${s.slice(0, max)}\n[... ${s.length - max} more characters]` : s);

export interface PrinterOptions {
  /** Steps left after a step, for its STEP line (null or absent: no step limit, nothing shown). */
  stepsLeft?: (step: number) => number | null;
  /** Print each reply's ACTION lines (default true; an interactive run shows actions itself). */
  actions?: boolean;
}

/**
 * Prints agent events as THOUGHT / ACTION / OBSERVATION blocks (colours only on a TTY). Every
 * text goes through `scrub` first (the CLI passes the config's secret scrubber: an API key the
 * model printed from a file is shown as ***), and what the model, a tool or a server wrote is
 * neutralised as `show` does (control characters in caret notation), so it cannot drive the
 * terminal. It reads the loop's typed events (a reply's thought and actions, an observation's
 * result, a rejection), never a message's bookkeeping; each thing is printed once (a format
 * error once, not again for each tool call it answers).
 */
export function createPrinter(
  write: (s: string) => void,
  color: boolean,
  scrub: (text: string) => string = (t) => t,
  options: PrinterOptions = {},
): (e: AgentEvent) => void {
  const c = pc.createColors(color);
  const out = (s: string) => write(scrub(s));
  const stepLine = (step: number) => {
    const left = options.stepsLeft?.(step) ?? null;
    return left === null ? `STEP ${step}` : `STEP ${step} (${left} step${left === 1 ? "" : "s"} left)`;
  };
  return (e) => {
    if (e.type === "model_call" || e.type === "action") return;
    if (e.type === "model_retry") {
      const wait = e.waitSeconds < 10 ? e.waitSeconds.toFixed(1) : String(Math.round(e.waitSeconds));
      out(
        `${c.yellow("RETRY")} model call ${e.step}, try ${e.tryNumber} of ${e.maxTries} failed: ${neutralize(e.reason)}; next try in ${wait} s\n`,
      );
      return;
    }
    if (e.type === "exit") {
      // a message that only repeats the status (`Interrupted`: "interrupted") is left out
      const message = e.message.trim().toLowerCase() === e.status.toLowerCase() ? "" : e.message;
      out(
        `${c.bold(e.status === "Submitted" ? c.green(`EXIT: ${e.status}`) : c.yellow(`EXIT: ${e.status}`))}${message ? ` ${neutralize(message)}` : ""}\n`,
      );
      return;
    }
    if (e.type === "message") {
      // the task is shown once, from its message; replies and observations have events of their own
      if (e.message.role === "user" && e.step === 0)
        out(`${c.bold(c.blue("TASK"))}\n${clip(textOf(e.message), 1500)}\n\n`);
      return;
    }
    if (e.type === "reply") {
      out(`${c.bold(c.magenta(stepLine(e.step)))}\n`);
      if (e.thought) out(`${c.bold("THOUGHT")}\n${clip(e.thought, 3000)}\n`);
      // an interactive run shows the actions it asks about (a reply that did not parse has none)
      if (options.actions === false && e.actions !== null) return;
      for (const a of e.actions ?? [])
        if (a.kind === "command") out(`${c.bold(c.cyan("ACTION"))}\n${clip(a.command, 3000)}\n`);
      // tool calls as the model wrote them, also those that could not run
      for (const call of e.message.tool_calls ?? [])
        out(
          `${c.bold(c.cyan("ACTION"))} ${neutralize(call.function.name)} ${clip(call.function.arguments, 3000)}\n`,
        );
      return;
    }
    if (e.type === "rejected") {
      out(`${c.red("FORMAT ERROR")}\n${clip(e.text.trimEnd(), 2000)}\n\n`);
      return;
    }
    if (e.type === "observation") {
      const label = e.result.timedOut ? c.red("OBSERVATION (timed out)") : c.bold("OBSERVATION");
      out(`${label}\n${clip(e.text.trimEnd(), 2000)}\n\n`);
    }
  };
}
