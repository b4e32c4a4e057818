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
       * CPU seconds of test runs (regression, reproduction, the examples) one instance may
       * use in all: no run goes past it, and candidates left when it is spent are not tested
       * (docs/selection.md "Cost").
       */
      budget: z.number().positive(),
      /** Wall-clock seconds any one test run may take (a run that sleeps or waits uses no CPU). */
      wall_timeout: z.number().positive(),
      regression: z
        .object({
          enabled: z.boolean(),
          /** CPU seconds one run of the chosen tests may use (at the base commit or with one candidate). */
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
          /** CPU seconds one run of the reproduction test may use. */
          timeout: z.number().positive(),
          /** Jinja template of the request; variables: problem_statement, test_path. */
          template: z.string().min(1),
        })
        .strict(),
      examples: z
        .object({
          /** Run the issue's own Python examples at the base commit and with each candidate. */
          enabled: z.boolean(),
          /** CPU seconds one run of the examples may use. */
          timeout: z.number().positive(),
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
