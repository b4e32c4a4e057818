import { describe, expect, it } from "vitest";
import { createLocalDispatcher } from "../../src/batch/local-dispatch.js";
import type { DispatchHooks, InstanceSink } from "../../src/batch/types.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { RepoAnalyses } from "../../src/localize/repo-analyses.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { tempDir } from "../support/tmp.js";
import { localSwebenchConfig } from "./helpers.js";

const row = (repo: string, n: number): SwebenchInstance =>
  ({
    instance_id: `${repo.replace("/", "__")}-${n}`,
    repo,
    base_commit: "0".repeat(40),
    problem_statement: "fix it",
  }) as SwebenchInstance;

const hooks: DispatchHooks = { onStart: () => {}, onAgentEvent: () => {} };

function sink(): InstanceSink & { lines: string[] } {
  const lines: string[] = [];
  return {
    dir: tempDir(),
    lines,
    log: (l) => lines.push(l),
    warn: (m) => lines.push(m),
    retire: async () => {},
  };
}

describe("local dispatch: the localization's analyses are counted per pending instance", () => {
  it("retains each pending row's repository at the start and releases it when that instance ends, however it ends, or at close", async () => {
    const analyses = new RepoAnalyses();
    const rows = [row("acme/a", 1), row("acme/b", 2), row("acme/a", 3), row("acme/c", 4)];
    const held = () => analyses.held().map((h) => `${h.repo} ${h.pending}`);
    const seen: string[][] = [];
    const out = sink();
    const d = await createLocalDispatcher(
      {
        config: localSwebenchConfig(),
        workers: 2,
        modelFor: () => new ScriptedModel([]),
        // Opening fails: the instance ends (EnvironmentError) without running the agent.
        openEnvironment: async (r) => {
          seen.push(held());
          throw new Error(`no environment for ${r.instance_id}`);
        },
        runId: "analyses-test",
        modelName: "scripted",
        pending: rows.map((row) => ({ row })),
        analyses,
      },
      out,
    );
    expect(held()).toEqual(["acme/a 2", "acme/b 1", "acme/c 1"]);
    const first = await d.run({ row: rows[0] }, hooks);
    expect(first?.outcome.exit_status).toBe("EnvironmentError");
    expect(held()).toEqual(["acme/a 1", "acme/b 1", "acme/c 1"]);
    // interrupted before it starts: it ends too, and is released
    d.interrupt();
    const second = await d.run({ row: rows[1] }, hooks);
    expect(second?.outcome.exit_status).toBe("Interrupted");
    expect(held()).toEqual(["acme/a 1", "acme/c 1"]);
    // what was held while the first instance opened its environment
    expect(seen[0]).toEqual(["acme/a 2", "acme/b 1", "acme/c 1"]);
    // the rows that never ran (the batch stopped) are released at close
    await d.close();
    expect(held()).toEqual([]);
    // released once: a second close counts nothing
    await d.close();
    expect(analyses.held()).toEqual([]);
  });

  it("a dispatch given no pending rows (a worker) retains nothing", async () => {
    const analyses = new RepoAnalyses();
    const d = await createLocalDispatcher(
      {
        config: localSwebenchConfig(),
        workers: 1,
        modelFor: () => new ScriptedModel([]),
        openEnvironment: async () => {
          throw new Error("no environment");
        },
        runId: "analyses-test",
        modelName: "scripted",
        analyses,
      },
      sink(),
    );
    await d.run({ row: row("acme/a", 1) }, hooks);
    expect(analyses.held()).toEqual([]);
    await d.close();
  });
});
