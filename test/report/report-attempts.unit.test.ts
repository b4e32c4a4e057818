import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/build.js";
import { collectRun } from "../../src/report/collect.js";
import { renderReport } from "../../src/report/render.js";

// A run with attempts: run.json's instance line holds the standing attempt's status, calls and
// cost; the tokens and seconds are on each attempt (as a batch with --attempts 2 writes them).
const ID = "acme__lib0-1";
const attempt = (k: number, secs: number) => ({
  exit_status: "Submitted",
  exit_message: "the agent submitted its work",
  api_calls: 3,
  prompt_tokens: 300,
  completion_tokens: 30,
  cost: 0,
  seconds: secs,
  attempt_number: k,
});

describe("report of a run with attempts", () => {
  const dir = join(tmpdir(), `patchloop-report-attempts-${process.pid}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts every attempt's tokens and seconds (the instance line lacks them)", async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "run.json"),
      JSON.stringify({
        instances: { [ID]: { exit_status: "Submitted", api_calls: 6, cost: 0, standing_attempt: 1 } },
        attempts: { [`${ID}/attempt-1`]: attempt(1, 1.5), [`${ID}/attempt-2`]: attempt(2, 2.5) },
      }),
    );
    writeFileSync(join(dir, "preds.json"), JSON.stringify({ [ID]: { instance_id: ID, model_patch: "" } }));
    const run = await collectRun(dir, null);
    expect(run.instances[0]).toMatchObject({
      steps: 6,
      prompt_tokens: 600,
      completion_tokens: 60,
      seconds: 4,
    });
    const report = buildReport(run);
    expect(report.usage.all.prompt_tokens.total).toBe(600);
    const md = renderReport(report);
    expect(md).toContain("| prompt tokens | 1 | 600 | 600 | 600 | 600 | 600 |");
    expect(md).toContain("| seconds | 1 | 4.0 | 4.0 | 4.0 | 4.0 | 4.0 |");
  });

  // attempts.json of the eval (src/batch/attempts-report.ts): `selected` counts the
  // instances whose preds.json patch a selection chose
  const withEval = (selected: number) => {
    const run = join(dir, "eval", "patchloop-run");
    mkdirSync(run, { recursive: true });
    writeFileSync(
      join(run, "attempts.json"),
      JSON.stringify({
        total: {
          instances: 1,
          first_attempt_resolved: 0,
          any_attempt_resolved: 1,
          selected_resolved: 0,
          selected,
        },
      }),
    );
    writeFileSync(
      join(run, "m.patchloop-run.json"),
      JSON.stringify({ resolved_ids: [], unresolved_ids: [ID] }),
    );
  };

  it("names what preds.json holds 'standing' when no selection chose it, as eval does", async () => {
    withEval(0);
    const md = renderReport(buildReport(await collectRun(dir, null)));
    expect(md).toContain(
      "Of 1 instances: first attempt resolved 0 (0.0%), any attempt 1 (100.0%), standing 0 (0.0%).",
    );
  });

  it("and 'selected' when a selection chose it", async () => {
    withEval(1);
    const md = renderReport(buildReport(await collectRun(dir, null)));
    expect(md).toContain(
      "Of 1 instances: first attempt resolved 0 (0.0%), any attempt 1 (100.0%), selected 0 (0.0%).",
    );
  });
});
