import type { z } from "zod";

/** A value read from a run file as a message shows it: JSON, cut at 80 characters. */
export function shownValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 80 ? text : `${text.slice(0, 80)}...`;
}

/** The first problems zod found (three at most), each with where it is (`info.exit_status: ...`). */
export function issuesText(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join(".") || "(top level)"}: ${i.message}`)
    .join("; ");
}
