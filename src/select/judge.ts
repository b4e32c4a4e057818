import { StrictTemplate } from "../config/template.js";
import type { Model } from "../models/types.js";

/** Characters of one candidate's diff shown to the judge; the rest is cut with a note. */
const DIFF_LIMIT = 20_000;
/** Characters of the judge's answer kept in selection.jsonl. */
const ANSWER_LIMIT = 2_000;

/** How the judge's answer was read. */
export type JudgeAnswer = { ok: true; choice: number } | { ok: false; problem: string };

/**
 * Reads the judge's answer strictly: exactly one non-empty line, `CHOICE: <n>`, with n one of the
 * numbers offered. Anything else (prose, two choices, an unknown number, nothing) is a problem in
 * words, and the caller falls back to the deterministic rule.
 */
export function parseJudgeAnswer(text: unknown, offered: number[]): JudgeAnswer {
  if (typeof text !== "string") return { ok: false, problem: "the answer has no text" };
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length !== 1) {
    return { ok: false, problem: `expected one line \`CHOICE: <number>\`, got ${lines.length} lines` };
  }
  const m = /^CHOICE:\s*(\d{1,6})$/.exec(lines[0]);
  if (!m)
    return {
      ok: false,
      problem: `expected \`CHOICE: <number>\`, got ${JSON.stringify(lines[0].slice(0, 80))}`,
    };
  const choice = Number(m[1]);
  if (!offered.includes(choice)) {
    return {
      ok: false,
      problem: `chose ${choice}, which is not one of the candidates offered (${offered.join(", ")})`,
    };
  }
  return { ok: true, choice };
}

/** What the judge was asked and said, as selection.jsonl records it. */
export interface JudgeRecord {
  /** Candidate numbers offered (1..k) and the candidate index each stands for. */
  offered: Array<{ number: number; candidate: number }>;
  /** The answer's text (cut to 2,000 characters), or the model's error. */
  answer: string;
  /** The candidate index chosen; absent when the answer could not be used. */
  chose?: number;
  /** Why the answer was not used. */
  problem?: string;
}

function clip(diff: string): string {
  return diff.length > DIFF_LIMIT
    ? `${diff.slice(0, DIFF_LIMIT)}\n[... ${diff.length - DIFF_LIMIT} more characters not shown]`
    : diff;
}

/**
 * Asks `model` to choose between the tied candidates (their indexes and patches): the template
 * gets the issue and the diffs numbered 1..k. Never rejects: a failed call or an unusable answer
 * comes back with `problem` set.
 */
export async function askJudge(
  model: Model,
  template: string,
  problemStatement: string,
  tied: Array<{ candidate: number; patch: string }>,
  signal?: AbortSignal,
): Promise<JudgeRecord> {
  const offered = tied.map((t, i) => ({ number: i + 1, candidate: t.candidate }));
  let prompt: string;
  try {
    prompt = new StrictTemplate(template, "run.select.judge.template").render({
      problem_statement: problemStatement,
      candidates: tied.map((t, i) => ({ number: i + 1, diff: clip(t.patch) })),
    });
  } catch (err) {
    return { offered, answer: "", problem: (err as Error).message };
  }
  const r = await model
    .query({ messages: [{ role: "user", content: prompt }], signal })
    .catch((err: Error) => ({ ok: false as const, message: err.message }));
  if (!r.ok) return { offered, answer: "", problem: `the judge's model call failed: ${r.message}` };
  const content = r.message.content;
  const text = typeof content === "string" ? content : null;
  const parsed = parseJudgeAnswer(
    text,
    offered.map((o) => o.number),
  );
  const answer = (text ?? "").slice(0, ANSWER_LIMIT);
  if (!parsed.ok) return { offered, answer, problem: parsed.problem };
  return { offered, answer, chose: offered[parsed.choice - 1].candidate };
}
