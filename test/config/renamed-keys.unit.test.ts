import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConfigLayer } from "../../src/cli/run-settings.js";
import { loadConfig } from "../../src/config/load.js";

const load = (...args: string[]) =>
  loadConfig({ configArgs: ["swebench", "model.model_name=m", ...args], defaultConfig: "swebench" });

describe("keys under their old names ('attempt' has one meaning: model calls are tried, queue jobs delivered)", () => {
  it("a -c or a file setting an old key is read under the new one, with a warning naming both", () => {
    const { config, warnings, origin } = load("model.retry.max_attempts=2", "run.queue.attempts=5");
    expect([config.model.retry.max_tries, config.run.queue.deliveries]).toEqual([2, 5]);
    expect(warnings).toEqual([
      "model.retry.max_attempts (from -c model.retry.max_attempts=2) is now named model.retry.max_tries: read as that; rename it there",
      "run.queue.attempts (from -c run.queue.attempts=5) is now named run.queue.deliveries: read as that; rename it there",
    ]);
    expect(origin.get("model.retry.max_tries")).toBe("-c model.retry.max_attempts=2");

    const file = join(mkdtempSync(join(tmpdir(), "pl-renamed-")), "old.yaml");
    writeFileSync(file, "model:\n  retry:\n    max_attempts: 3\n");
    const fromFile = load(file);
    expect(fromFile.config.model.retry.max_tries).toBe(3);
    expect(fromFile.warnings).toEqual([
      `model.retry.max_attempts (from ${file}) is now named model.retry.max_tries: read as that; rename it there`,
    ]);
    // The new name, as configs/base.yaml sets it, needs no warning.
    expect(load().warnings).toEqual([]);
    expect(load().config.model.retry.max_tries).toBe(6);
    expect(load().config.run.queue.deliveries).toBe(3);
  });

  it("a later layer under the new name wins over an earlier one under the old, as any two layers do", () => {
    expect(load("model.retry.max_attempts=2", "model.retry.max_tries=4").config.model.retry.max_tries).toBe(
      4,
    );
    expect(load("model.retry.max_tries=4", "model.retry.max_attempts=2").config.model.retry.max_tries).toBe(
      2,
    );
  });

  it("one layer setting both names is an error that says which to keep", () => {
    expect(() => load("model.retry={max_attempts: 2, max_tries: 3}")).toThrow(
      "model.retry.max_attempts and model.retry.max_tries (from -c model.retry={max_attempts: 2, max_tries: 3}) " +
        "are one setting under its old and new name: keep model.retry.max_tries only",
    );
  });

  it("an attempt variant, the selection's model layers and an older run.json's config are renamed too", () => {
    const { config, warnings } = load(
      "run.attempts=2",
      "run.attempt_variants=[{}, {model: {retry: {max_attempts: 1}}}]",
      "run.select.judge.model={retry: {max_attempts: 2, initial_delay: 0, max_delay: 0, max_total: 0}}",
    );
    expect(config.run.attempt_variants[1]).toEqual({ model: { retry: { max_tries: 1 } } });
    expect(config.run.select.judge.model.retry?.max_tries).toBe(2);
    expect(warnings).toEqual([
      "run.select.judge.model.retry.max_attempts (from -c run.select.judge.model={retry: {max_attempts: 2, initial_delay: 0, max_delay: 0, max_total: 0}}) " +
        "is now named run.select.judge.model.retry.max_tries: read as that; rename it there",
      "model.retry.max_attempts (from run.attempt_variants[1]) is now named model.retry.max_tries: read as that; rename it there",
    ]);

    const layer = runConfigLayer(
      { path: "/runs/old/run.json", sections: { model: { model_name: "m", retry: { max_attempts: 2 } } } },
      ["model"],
    );
    if (!layer) throw new Error("no layer");
    const old = loadConfig({ configArgs: ["swebench"], defaultConfig: "swebench", flagLayers: [layer] });
    expect([old.config.model.retry.max_tries, old.warnings]).toEqual([
      2,
      [
        "model.retry.max_attempts (from /runs/old/run.json (the run's config)) is now named model.retry.max_tries: read as that; rename it there",
      ],
    ]);
  });
});
