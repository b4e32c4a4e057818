import { StrictTemplate } from "../config/template.js";
import type { Model } from "../models/types.js";

/** Where the reproduction test is written in the repository (removed with the work tree's reset). */
export const REPRO_TEST_PATH = "test_patchloop_reproduction.py";

/** Characters of a test file kept from the model's answer; a longer one is refused. */
const MAX_TEST_CHARS = 50_000;

/** The test a model wrote, or why there is none. */
export type ReproAnswer = { ok: true; test: string } | { ok: false; problem: string };

/**
 * The Python test in the model's answer: the one ```python (or ```py) fenced block. No block,
 * several blocks, an empty one or one over 50,000 characters is a problem in words.
 */
export function extractTest(text: unknown): ReproAnswer {
  if (typeof text !== "string") return { ok: false, problem: "the answer has no text" };
  const blocks = [...text.matchAll(/```(?:python|py)[ \t]*\n([\s\S]*?)```/g)].map((m) => m[1]);
  if (blocks.length !== 1) {
    return { ok: false, problem: `expected one \`\`\`python block, found ${blocks.length}` };
  }
  const test = blocks[0];
  if (test.trim() === "") return { ok: false, problem: "the python block is empty" };
  if (test.length > MAX_TEST_CHARS)
    return { ok: false, problem: `the test has ${test.length} characters (at most ${MAX_TEST_CHARS})` };
  if (test.includes("\0")) return { ok: false, problem: "the test holds a NUL character" };
  return { ok: true, test };
}

/** Asks `model` for a reproduction test of the issue (never rejects: failures come back as problems). */
export async function askForTest(
  model: Model,
  template: string,
  problemStatement: string,
  signal?: AbortSignal,
): Promise<ReproAnswer> {
  let prompt: string;
  try {
    prompt = new StrictTemplate(template, "run.select.reproduce.template").render({
      problem_statement: problemStatement,
      test_path: REPRO_TEST_PATH,
    });
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
  const r = await model
    .query({ messages: [{ role: "user", content: prompt }], signal })
    .catch((err: Error) => ({ ok: false as const, message: err.message }));
  if (!r.ok) return { ok: false, problem: `the model call failed: ${r.message}` };
  return extractTest(r.message.content);
}
