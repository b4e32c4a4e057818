import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createModel } from "../../src/models/factory/create-model.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { localBatchArgs, parseRunFolder, trajectory } from "../batch/helpers.js";
import { modelConfig, recordingSleep } from "../models/helpers.js";
import {
  buildFixtureInstances,
  type FixtureInstances,
  STEPWISE_COMMAND,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";

/**
 * A reply larger than any real one (hundreds of MB streamed, or a 700 KB gzip body that decodes to
 * 700 MiB) ends that one call as a fatal ModelError: read up to `model.max_response_bytes` and no
 * further, the batch goes on, and a resume keeps the verdict instead of asking (and crashing) again.
 */

const MIB = 1024 ** 2;
const CHILD = join(import.meta.dirname, "..", "batch", "fixtures", "swebench-child.mjs");

const tooLarge = (model: string, url: string, limit: number, how: string) =>
  `${model}: the reply from ${url} was larger than model.max_response_bytes (${limit} bytes, ${limit / MIB} MiB) ` +
  `${how}, so it was dropped unread; a real reply is far smaller. Check the server and model.model_kwargs ` +
  "(max_tokens, logprobs), or raise model.max_response_bytes (not retried)";

describe("a reply over model.max_response_bytes, both clients", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  for (const wire of ["openai", "anthropic"] as const) {
    it(`${wire}: a streamed flood and a gzip bomb each end their call (fatal, one attempt); the next call works`, async () => {
      const name = `${wire}/flood`;
      const model = createModel(
        modelConfig({
          model_name: name,
          base_url: wire === "openai" ? `${server.url}/v1` : server.url,
          max_response_bytes: MIB,
        }),
        { env: { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" }, sleep: recordingSleep().sleep },
      );
      const url = `${server.url}/v1/${wire === "openai" ? "chat/completions" : "messages"}`;
      const messages = [{ role: "user" as const, content: "hi" }];
      server.enqueue(
        { type: "flood", bytes: 64 * MIB },
        { type: "flood", bytes: 64 * MIB, gzip: true },
        { type: "reply", content: "fine" },
      );
      const streamed = await model.query({ messages });
      const bomb = await model.query({ messages });
      expect([streamed, bomb]).toEqual([
        { ok: false, kind: "fatal", message: tooLarge(name, url, MIB, "as sent"), tries: 1 },
        { ok: false, kind: "fatal", message: tooLarge(name, url, MIB, "once decompressed"), tries: 1 },
      ]);
      const next = await model.query({ messages });
      expect(next.ok && next.message.content).toBe("fine");
      expect(server.pending()).toBe(0);
    });
  }
});

interface ChildRun {
  code: number | null;
  /** Peak resident memory of the child, in MiB. */
  peakMib: number;
}

/** Runs `patchloop swebench ARGS` in its own process; reports its exit code and peak memory. */
function runChild(args: string[]): Promise<ChildRun> {
  const report = join(tempDir(), "maxrss");
  const wrapper =
    `import { writeFileSync } from "node:fs";` +
    `process.on("exit", () => writeFileSync(${JSON.stringify(report)}, String(process.resourceUsage().maxRSS)));` +
    `await import(${JSON.stringify(new URL(`file://${CHILD}`).href)});`;
  const proc = spawn(process.execPath, ["--input-type=module", "-e", wrapper, CHILD, "swebench", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr?.on("data", (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  return new Promise((resolve) =>
    proc.on("close", (code) => {
      if (code !== 0) console.error(stderr);
      resolve({ code, peakMib: Number(readFileSync(report, "utf8")) / 1024 });
    }),
  );
}

describe("oversize replies inside a batch", () => {
  let f: FixtureInstances;
  let server: FakeLlmServer;
  beforeAll(async () => {
    f = buildFixtureInstances(tempDir(), { count: 3, repos: 1 });
    server = await startFakeLlmServer({
      defaultBehaviour: {
        type: "reply",
        content: "step",
        toolCalls: [{ name: "bash", arguments: { command: STEPWISE_COMMAND } }],
      },
    });
  });
  afterAll(() => server.close());

  it("a 700 MiB gzip bomb and a 600 MiB stream end their own instances as ModelError; memory stays low; a resume keeps them", async () => {
    // default cap (64 MiB): each flood is 10 times past it, and past what one string may hold
    server.enqueue({ type: "flood", bytes: 700 * MIB, gzip: true }, { type: "flood", bytes: 600 * MIB });
    const out = join(tempDir(), "run");
    const args = [...localBatchArgs(f.datasetPath, server.url, f.reposDir), "-w", "1", "-o", out];
    const first = await runChild(args);
    expect(first.code).toBe(0);
    // the whole CLI with one capped reply in memory; reading either flood whole would take 600+ MiB
    expect(first.peakMib).toBeLessThan(450);
    const statuses = parseRunFolder(out);
    const flooded = f.rows.map((r) => r.instance_id).filter((id) => statuses[id] === "ModelError");
    expect(flooded).toHaveLength(2);
    const url = `${server.url}/v1/chat/completions`;
    const ends = flooded.map((id) => {
      const info = trajectory(out, id).info;
      return [info.exit_message, info.model_error];
    });
    expect(ends.sort()).toEqual(
      [
        [tooLarge("openai/fake", url, 64 * MIB, "as sent"), { kind: "fatal" }],
        [tooLarge("openai/fake", url, 64 * MIB, "once decompressed"), { kind: "fatal" }],
      ].sort(),
    );
    const submitted = f.rows.filter((r) => statuses[r.instance_id] === "Submitted");
    expect(submitted).toHaveLength(1);
    const calls = server.requests.filter((r) => r.method === "POST").length;

    const resumed = await runChild(args);
    expect(resumed.code).toBe(0);
    expect(parseRunFolder(out)).toEqual(statuses);
    expect(server.requests.filter((r) => r.method === "POST")).toHaveLength(calls);
  }, 240_000);
});
