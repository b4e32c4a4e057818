import type { SwebenchInstance } from "../dataset/types.js";

/** The fields of a row that are the hidden answer: selection never reads them. */
export const HIDDEN_FIELDS = ["FAIL_TO_PASS", "PASS_TO_PASS", "test_patch", "patch"] as const;

type Hidden = (typeof HIDDEN_FIELDS)[number];
type VisibleFields = { [K in keyof SwebenchInstance as K extends Hidden ? never : K]: SwebenchInstance[K] };

/** A row as selection sees it: the hidden fields blank (the rest as in the dataset). */
export type PublicRow = VisibleFields & {
  FAIL_TO_PASS: "[]";
  PASS_TO_PASS: "[]";
  test_patch: "";
  patch: "";
};

/**
 * A copy of `row` with the hidden fields blank, made without reading them (their keys are
 * skipped before any value is read), so nothing downstream can use the answer.
 */
export function publicRow(row: SwebenchInstance): PublicRow {
  const hidden = new Set<string>(HIDDEN_FIELDS);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(row)) if (!hidden.has(key)) out[key] = row[key];
  return { ...(out as VisibleFields), FAIL_TO_PASS: "[]", PASS_TO_PASS: "[]", test_patch: "", patch: "" };
}
