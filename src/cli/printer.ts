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
 * neutralised as `show` does (control characters in caret notation), so it cannot drive the terminal. Each thing is printed once: the tool message that
 * repeats a format error for its call id is left out, since the FORMAT ERROR message that follows
 * says the same.
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
    if (e.type === "model_call") return;
    if (e.type === "model_retry") {
      const wait = e.waitSeconds < 10 ? e.waitSeconds.toFixed(1) : String(Math.round(e.waitSeconds));
      out(
        `${c.yellow("RETRY")} model call ${e.step}, attempt ${e.attempt} of ${e.maxAttempts} failed: ${neutralize(e.reason)}; next try in ${wait} s\n`,
      );
      return;
    }
    if (e.type === "exit") {
      out(
        `${c.bold(e.status === "Submitted" ? c.green(`EXIT: ${e.status}`) : c.yellow(`EXIT: ${e.status}`))} ${neutralize(e.message)}\n`,
      );
      return;
    }
    const m = e.message;
    if (m.role === "system") return;
    if (m.role === "user" && e.step === 0) {
      out(`${c.bold(c.blue("TASK"))}\n${clip(textOf(m), 1500)}\n\n`);
      return;
    }
    if (m.role === "assistant") {
      out(`${c.bold(c.magenta(stepLine(e.step)))}\n`);
      const commands = ((m.extra?.actions ?? []) as Array<{ command?: string }>).filter(
        (a) => a.command !== undefined,
      );
      // backticks protocol: the fenced command is shown as the ACTION, not inside the thought
      const text =
        commands.length > 0 ? textOf(m).replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, "") : textOf(m);
      const thought = text.trim();
      if (thought) out(`${c.bold("THOUGHT")}\n${clip(thought, 3000)}\n`);
      // an interactive run shows the actions it asks about; a reply that did not parse has none
      if (options.actions === false && m.extra?.actions !== undefined) return;
      for (const a of commands) out(`${c.bold(c.cyan("ACTION"))}\n${clip(a.command ?? "", 3000)}\n`);
      for (const call of m.tool_calls ?? [])
        out(
          `${c.bold(c.cyan("ACTION"))} ${neutralize(call.function.name)} ${clip(call.function.arguments, 3000)}\n`,
        );
      return;
    }
    if (m.role === "tool" && m.extra?.format_error) return;
    const label = m.extra?.format_error
      ? c.red("FORMAT ERROR")
      : m.extra?.timed_out
        ? c.red("OBSERVATION (timed out)")
        : c.bold("OBSERVATION");
    out(`${label}\n${clip(textOf(m).trimEnd(), 2000)}\n\n`);
  };
}
