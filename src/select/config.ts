import { z } from "zod";

/**
 * `run.select` (docs/selection.md): how `patchloop select` and the end of a batch pick one patch
 * per instance from its candidates. `modelLayer` is the schema of a layer over the model section
 * (config/schema.ts owns it and passes it in: its fields, each optional, no other key), so that
 * the judge's and the reproducer's model layers are checked key by key like the run's own `model`
 * section. The config's type is `SelectConfig` in config/schema.ts.
 */
export function makeSelectSchema<Layer extends z.ZodType>(modelLayer: Layer) {
  return z
    .object({
      /** Select at the end of a batch with attempts (`patchloop select DIR` runs whatever this says). */
      enabled: z.boolean(),
      /**
       * Seconds of test runs (regression and reproduction) one instance may use in all: no run
       * goes past it, and candidates left when it is spent are not tested (docs/selection.md "Cost").
       */
      budget: z.number().positive(),
      regression: z
        .object({
          enabled: z.boolean(),
          /** Seconds one run of the chosen tests may take (at the base commit or with one candidate). */
          timeout: z.number().positive(),
          /** Test files run at most (the most relevant to the changed modules first). */
          max_test_files: z.number().int().min(1).max(100),
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
