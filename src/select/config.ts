import { z } from "zod";
import type { ModelSchema } from "../config/schema.js";

/**
 * `run.select` (docs/selection.md): how `patchloop select` and the end of a batch pick one patch
 * per instance from its candidates. The schema is made from the model section's schema (passed in
 * by config/schema.ts, which owns it) so that the judge's and the reproducer's model layers are
 * checked key by key like the run's own `model` section.
 */
export function makeSelectSchema(model: typeof ModelSchema) {
  const modelLayer = model.partial().strict();
  return z
    .object({
      /** Select at the end of a batch with attempts (`patchloop select DIR` runs whatever this says). */
      enabled: z.boolean(),
      regression: z
        .object({
          enabled: z.boolean(),
          /** Seconds one run of the chosen tests may take (at the base commit or with one candidate). */
          timeout: z.number().positive(),
          /** Test files run at most (the most relevant to the changed modules first). */
          max_test_files: z.number().int().min(1).max(100),
          /** Seconds of test runs one instance may use in all; candidates left untested when it is spent. */
          budget: z.number().positive(),
        })
        .strict(),
      reproduce: z
        .object({
          enabled: z.boolean(),
          /** Keys laid over the run's `model` section for the model that writes the test. */
          model: modelLayer,
          /** Seconds one run of the reproduction test may take. */
          timeout: z.number().positive(),
          /** Jinja template of the request; variables: problem_statement, test_path. */
          template: z.string().min(1),
        })
        .strict(),
      judge: z
        .object({
          enabled: z.boolean(),
          /** Keys laid over the run's `model` section for the judge. */
          model: modelLayer,
          /** Jinja template of the request; variables: problem_statement, candidates (list of {number, diff}). */
          template: z.string().min(1),
        })
        .strict(),
    })
    .strict();
}

export type SelectConfig = z.infer<ReturnType<typeof makeSelectSchema>>;
