import type { z } from "zod";

/** A value read from a file or received as a message shows it: JSON, cut at `max` characters. */
export function shownValue(value: unknown, max = 80): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/** The first problems zod found (three at most), each with where it is (`info.exit_status: ...`). */
export function issuesText(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join(".") || "(top level)"}: ${i.message}`)
    .join("; ");
}
