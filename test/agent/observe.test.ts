import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  INTERRUPTED_INFO,
  type ObserveOptions,
  observationMessages,
  outputVars,
} from "../../src/agent/observe.js";
import { StrictTemplate } from "../../src/config/template.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import type { ToolResult } from "../../src/tools/base/types.js";
import { createBashTool } from "../../src/tools/bash.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const base = parse(readFileSync(join(root, "configs/base.yaml"), "utf8")) as {
  model: { observation_template: string };
};
const options: ObserveOptions = {
  template: new StrictTemplate(base.model.observation_template, "model.observation_template"),
  vars: { timeout: 120 },
  outputLimit: 10_000,
  timeout: 120,
  step: 3,
};
const action = { kind: "tool" as const, id: "call_1", name: "bash", args: { command: "sleep 300" } };

const dir = mkdtempSync(join(tmpdir(), "patchloop-observe-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The tool message for `result`, without its timestamp. */
function observe(result: ToolResult) {
  const [message, ...rest] = observationMessages(action, result, options, 42);
  expect(rest).toEqual([]);
  const { timestamp, ...extra } = message.extra ?? {};
  expect(typeof timestamp).toBe("string");
  return { content: message.content, extra };
}

describe("observations of stopped commands", () => {
  it("a command its timeout stopped is reported as timed out", () => {
    const result = { output: "started\n", returncode: -1, timedOut: true };
    expect(outputVars(result, 10_000, 120)).toEqual({
      output: "started\n",
      returncode: -1,
      exception_info: "the command timed out after 120 seconds and was stopped",
      timed_out: true,
    });
    expect(observe(result)).toEqual({
      content:
        "The command was stopped after 120 seconds; this is what it printed until then:\n" +
        "<returncode>-1</returncode>\n" +
        "<error>the command timed out after 120 seconds and was stopped</error>\n" +
        "<output>\nstarted\n\n</output>",
      extra: { returncode: -1, timed_out: true, duration_ms: 42, step: 3 },
    });
  });

  it("a command interrupted because the run is stopping is not reported as a timeout", () => {
    const result = { output: "started\n", returncode: -1, timedOut: false, interrupted: true };
    expect(outputVars(result, 10_000, 120)).toEqual({
      output: "started\n",
      returncode: -1,
      exception_info: "the command was interrupted because the run is stopping",
      timed_out: false,
    });
    expect(INTERRUPTED_INFO).toBe("the command was interrupted because the run is stopping");
    expect(observe(result)).toEqual({
      content:
        "<returncode>-1</returncode>\n" +
        "<error>the command was interrupted because the run is stopping</error>\n" +
        "<output>\nstarted\n\n</output>",
      extra: { returncode: -1, timed_out: false, duration_ms: 42, step: 3 },
    });
  });

  it("a command that ended by itself has no error", () => {
    expect(outputVars({ output: "ok\n", returncode: 0 }, 10_000, 120)).toEqual({
      output: "ok\n",
      returncode: 0,
      exception_info: "",
      timed_out: false,
    });
  });

  it("a real bash command stopped by the abort signal is observed as interrupted", async () => {
    const env = createLocalEnvironment({ cwd: dir });
    const bash = createBashTool();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await bash.execute(
      { command: "echo started; sleep 300" },
      { env, timeout: 120, vision: false, signal: controller.signal },
    );
    await env.close();
    expect(observe(result)).toEqual({
      content:
        "<returncode>-1</returncode>\n" +
        "<error>the command was interrupted because the run is stopping</error>\n" +
        "<output>\nstarted\n[The command was stopped because the agent is stopping; the output above is what it printed until then.]\n</output>",
      extra: { returncode: -1, timed_out: false, duration_ms: 42, step: 3 },
    });
  });
});
