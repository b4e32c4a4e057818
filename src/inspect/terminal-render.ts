import pc from "picocolors";
import { plural } from "../util/plural.js";
import { neutralize } from "../util/terminal-text.js";
import type { ObservationView, PromptView, StepView, TrajectoryView } from "./view/view-model.js";

export interface TerminalOptions {
  /** ANSI colours (on a TTY) or plain text. */
  color: boolean;
  /** Show long prompts and observations whole instead of clipping them. */
  full: boolean;
}

/** Texts longer than this many lines are clipped to their head and tail. */
export const CLIP_LINES = 40;
const HEAD_LINES = 20;
const TAIL_LINES = 10;
/** After line clipping, texts longer than this many characters are cut. */
export const CLIP_CHARS = 6000;

type Colors = ReturnType<typeof pc.createColors>;

/** Clips long text to its first and last lines (and a character cap), with a note saying so. */
export function clipText(text: string, full: boolean): { text: string; note: string | null } {
  if (full) return { text, note: null };
  const lines = text.split("\n");
  if (lines.length > CLIP_LINES) {
    const hidden = lines.length - HEAD_LINES - TAIL_LINES;
    const kept = [...lines.slice(0, HEAD_LINES), `[... ${hidden} lines clipped; --full shows all ...]`];
    return { text: [...kept, ...lines.slice(-TAIL_LINES)].join("\n"), note: `${hidden} lines clipped` };
  }
  if (text.length > CLIP_CHARS) {
    const hidden = text.length - CLIP_CHARS;
    return {
      text: `${text.slice(0, CLIP_CHARS)}\n[... ${hidden} characters clipped; --full shows all ...]`,
      note: `${hidden} characters clipped`,
    };
  }
  return { text, note: null };
}

const num = (n: number | null) => (n === null ? "?" : n.toLocaleString("en-US"));

function heading(c: Colors, text: string): string {
  return c.bold(c.cyan(`=== ${text} ===`));
}

/** Neutralised, clipped text with the clip note dimmed. */
function shown(c: Colors, text: string, full: boolean): string {
  if (text.trim() === "") return "(empty)";
  const clipped = clipText(neutralize(text).replace(/\n$/, ""), full);
  if (!clipped.note) return clipped.text;
  return clipped.text.replace(/^\[\.\.\. \d+ (lines|characters) clipped; --full shows all \.\.\.\]$/m, (m) =>
    c.dim(m),
  );
}

function promptLines(c: Colors, p: PromptView, full: boolean): string[] {
  const label = `${neutralize(p.role).toUpperCase()}${p.note ? ` (${p.note})` : ""} (${num(p.chars)} chars)`;
  return [heading(c, label), shown(c, p.text, full), ""];
}

function observationLines(c: Colors, o: ObservationView, full: boolean): string[] {
  let label = c.blue("OBSERVATION");
  if (o.returncode !== null) {
    const code = `(returncode ${o.returncode})`;
    label += ` ${o.returncode === 0 ? code : c.yellow(code)}`;
  }
  if (o.formatError) label += ` ${c.bold(c.red("[FORMAT ERROR]"))}`;
  if (o.timedOut) label += ` ${c.bold(c.red("[TIMED OUT]"))}`;
  return [`${label}:`, timeoutOnce(c, o, full)];
}

/** A line that states a command's time limit ("stopped after 30 seconds", "timed out after 30 s"). */
const LIMIT_STATED = /\b(?:timed out|stopped|killed) after \d+(?:\.\d+)? ?(?:seconds?|s)\b/i;

/**
 * A timed-out observation with its limit stated once: the template, the error line and the tool's
 * note often each say it; the first line that does is kept, and a dim note says how many were left
 * out (--full shows the text as the model got it).
 */
function timeoutOnce(c: Colors, o: ObservationView, full: boolean): string {
  const text = shown(c, o.text, full);
  if (full || !o.timedOut) return text;
  let seen = 0;
  const kept = text.split("\n").filter((line) => !LIMIT_STATED.test(line) || seen++ === 0);
  if (seen < 2) return text;
  const more = seen - 1;
  kept.push(
    c.dim(
      `[the time limit was stated ${more} more time${more === 1 ? "" : "s"} here; --full shows the observation as sent]`,
    ),
  );
  return kept.join("\n");
}

const NOT_RUN_SIBLING = "Not run: another tool call in the same reply was invalid.";

/**
 * The observations of a step with a format error's repeats left out: on the tool_calls protocol the
 * error goes back once per call id (`Error: ...`, or "Not run: another tool call ...") and again in
 * the message that follows; those replies are counted instead of printed (--full prints them).
 */
function onceEach(s: StepView, full: boolean): { shown: ObservationView[]; repeats: number } {
  if (full) return { shown: s.observations, repeats: 0 };
  const errors = s.observations.filter((o) => o.formatError);
  const repeats = new Set<ObservationView>();
  for (const o of errors) {
    const said = o.text.replace(/^Error: /, "").trim();
    const elsewhere = errors.some((other) => other !== o && !repeats.has(other) && other.text.includes(said));
    if (said !== "" && (elsewhere || (said.startsWith(NOT_RUN_SIBLING) && errors.length > 1))) repeats.add(o);
  }
  return { shown: s.observations.filter((o) => !repeats.has(o)), repeats: repeats.size };
}

function stepLines(c: Colors, s: StepView, full: boolean): string[] {
  const facts: string[] = [];
  if (s.prompt_tokens !== null || s.completion_tokens !== null) {
    facts.push(`${num(s.prompt_tokens)} prompt / ${num(s.completion_tokens)} completion tokens`);
  }
  if (s.finishReason && s.finishReason !== "stop" && s.finishReason !== "tool_calls") {
    facts.push(`finish: ${s.finishReason}`);
  }
  const lines = [heading(c, [`STEP ${s.index}`, ...facts].join(" · "))];
  if (s.reasoning)
    lines.push(
      full
        ? `${c.dim("REASONING")}:\n${neutralize(s.reasoning)}`
        : c.dim(`REASONING: ${s.reasoning.length} characters (--full shows them)`),
    );
  if (s.thought) lines.push(`${c.magenta("THOUGHT")}:`, neutralize(s.thought));
  if (s.actions.length === 0) lines.push(`${c.yellow("ACTION")}: (none parsed)`);
  for (const a of s.actions)
    lines.push(`${c.yellow(a.tool ? `ACTION [${neutralize(a.tool)}]` : "ACTION")}:`, neutralize(a.text));
  const { shown: observations, repeats } = onceEach(s, full);
  for (const o of observations) lines.push(...observationLines(c, o, full));
  if (repeats > 0)
    lines.push(
      c.dim(
        `[the same error also went back as the reply to ${repeats} tool call${repeats === 1 ? "" : "s"}; --full shows them]`,
      ),
    );
  lines.push("");
  return lines;
}

function diffLine(c: Colors, line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff --git")) return c.bold(line);
  if (line.startsWith("@@")) return c.cyan(line);
  if (line.startsWith("+")) return c.green(line);
  if (line.startsWith("-")) return c.red(line);
  return line;
}

function headerLines(c: Colors, v: TrajectoryView): string[] {
  const title = `${c.bold(neutralize(v.instanceId ?? "(no id)"))}  [${v.exitStatus ?? "no exit status"}]  (${v.source})`;
  const facts = [
    `model ${v.model ?? "?"}`,
    plural(v.steps.length, "step"),
    `${num(v.prompt_tokens)} prompt / ${num(v.completion_tokens)} completion tokens`,
    `cost ${v.cost === null ? "?" : `$${v.cost.toFixed(4)}`}`,
    `wall ${v.wallSeconds === null ? "?" : `${v.wallSeconds.toFixed(1)} s`}`,
  ];
  const lines = [title, facts.join(" · ")];
  if (v.exitMessage) lines.push(`exit message: ${neutralize(v.exitMessage)}`);
  lines.push("");
  return lines;
}

/**
 * Renders a trajectory for the terminal: header, SYSTEM and first USER message with their lengths,
 * each step as THOUGHT / ACTION / OBSERVATION, then the patch. Returns the text, ending in a newline.
 */
export function renderTrajectoryText(v: TrajectoryView, options: TerminalOptions): string {
  const c = pc.createColors(options.color);
  const lines = headerLines(c, v);
  for (const p of [v.system, v.firstUser, ...v.preamble])
    if (p) lines.push(...promptLines(c, p, options.full));
  for (const s of v.steps) lines.push(...stepLines(c, s, options.full));
  lines.push(heading(c, `PATCH (${num(v.submission.length)} chars)`));
  if (v.submission.trim() === "") lines.push("(empty)");
  else
    lines.push(
      ...neutralize(v.submission)
        .replace(/\n$/, "")
        .split("\n")
        .map((l) => diffLine(c, l)),
    );
  return `${lines.join("\n")}\n`;
}
