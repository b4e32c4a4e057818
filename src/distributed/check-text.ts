import type { z } from "zod";

/** A value received from the queue as a message shows it: JSON, cut at 80 characters. */
export { shownValue as shown } from "../util/schema-text.js";

/** The first problem zod found, with where it is (`result.outcome.cost: ...`). */
export function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue.path.map(String).join(".");
  return where ? `${where}: ${issue.message}` : issue.message;
}
