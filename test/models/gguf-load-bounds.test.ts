import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../src/models/factory/create-model.js";
import { GGML_TYPE_CODES, ggmlType } from "../../src/models/gguf/ggml-types.js";
import { heldMemory, loadBoundsOf, watchLoad } from "../../src/models/gguf/load-bounds.js";
import { disposeRuntimes } from "../../src/models/gguf/runtime.js";
import type { ModelRequest } from "../../src/models/types.js";
import { writeTinyModel } from "../../src/testing/gguf-tiny-model.js";
import { describeWithGguf } from "../support/gguf-runtime.js";
import { modelConfig } from "./helpers.js";

let dir: string;
let tiny: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "patchloop-gguf-bounds-"));
  tiny = writeTinyModel(dir);
});
afterAll(async () => {
  await disposeRuntimes();
  rmSync(dir, { recursive: true, force: true });
});

const REQUEST: ModelRequest = { messages: [{ role: "user", content: "hi" }] };

/** A gguf: model of `path` with these model.gguf settings (each test its own context size: its own runtime). */
function gguf(path: string, contextSize: number, over: Partial<ReturnType<typeof modelConfig>["gguf"]> = {}) {
  return createModel(
    modelConfig({
      model_name: `gguf:${path}`,
      model_kwargs: { max_tokens: 2 },
      gguf: {
        ...modelConfig().gguf,
        context_size: contextSize,
        threads: 1,
        gpu_layers: 0,
        sequences: 1,
        ...over,
      },
    }),
  );
}

describe("the watch over one load", () => {
  it("calls once with the memory bound's line when the process holds more than its bound", async () => {
    const heard: string[] = [];
    const bounds = { seconds: 60, memory: 2 * 1024 ** 3, memorySource: "model.gguf.load_memory_gib" };
    let held = 1024 ** 3;
    const stop = watchLoad(
      "/m/model.gguf",
      bounds,
      (m) => heard.push(m),
      () => held,
    );
    await new Promise((r) => setTimeout(r, 250));
    expect(heard).toEqual([]);
    held = 3 * 1024 ** 3;
    await new Promise((r) => setTimeout(r, 350));
    stop();
    expect(heard).toEqual([
      "/m/model.gguf: loading the model took this process to 3.0 GiB of memory, over its bound of 2.0 GiB (model.gguf.load_memory_gib); use a smaller quantisation or model.gguf.context_size, put layers on a GPU (model.gguf.gpu_layers), or raise the bound",
    ]);
  });

  it("calls with the time bound's line when the load outlasts its seconds, and not after stop", async () => {
    const heard: string[] = [];
    const bounds = { seconds: 0.2, memory: 1e15, memorySource: "x" };
    watchLoad(
      "/m/model.gguf",
      bounds,
      (m) => heard.push(m),
      () => 0,
    );
    const stopped = watchLoad(
      "/m/other.gguf",
      bounds,
      (m) => heard.push(m),
      () => 0,
    );
    stopped();
    await new Promise((r) => setTimeout(r, 500));
    expect(heard).toEqual([
      "/m/model.gguf: the model did not load within 0.2 s (model.gguf.load_timeout); raise it for a large model on a slow disk, or check that the file is a model llama.cpp loads",
    ]);
  });

  it("defaults to 600 s and 90% of the machine's memory, and measures this process's own", () => {
    const b = loadBoundsOf({});
    expect(b.seconds).toBe(600);
    expect(b.memorySource).toBe("90% of this machine's memory; model.gguf.load_memory_gib");
    expect(heldMemory()).toBeGreaterThan(1024 ** 2);
    expect(heldMemory()).toBeLessThan(b.memory);
  });
});

describeWithGguf("loading a GGUF model under its bounds", () => {
  it("fails the query with one line naming the file when the load outlasts model.gguf.load_timeout, and does not load it again", async () => {
    const model = gguf(tiny, 1024, { load_timeout: 0.01 });
    const started = Date.now();
    const first = await model.query(REQUEST);
    expect(first).toMatchObject({
      ok: false,
      kind: "fatal",
      message: `${tiny}: the model did not load within 0.01 s (model.gguf.load_timeout); raise it for a large model on a slow disk, or check that the file is a model llama.cpp loads`,
    });
    const again = Date.now();
    expect(await model.query(REQUEST)).toMatchObject({
      ok: false,
      message: (first as { message: string }).message,
    });
    expect(Date.now() - again).toBeLessThan(100);
    expect(again - started).toBeLessThan(5_000);
  });

  it("fails the query with one line naming the file when the process holds more than model.gguf.load_memory_gib", async () => {
    const r = await gguf(tiny, 1280, { load_memory_gib: 0.001 }).query(REQUEST);
    expect(r.ok).toBe(false);
    expect((r as { message: string }).message).toMatch(
      new RegExp(
        `^${tiny}: loading the model took this process to \\d+\\.\\d{3} GiB of memory, over its bound of 0\\.001 GiB \\(model\\.gguf\\.load_memory_gib\\); `,
      ),
    );
  });

  it("answers an aborted query at once while the model loads, and gives the load up when no one waits", async () => {
    const model = gguf(tiny, 1536);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 20);
    const started = Date.now();
    const r = await model.query({ ...REQUEST, signal: stop.signal });
    expect(r).toMatchObject({
      ok: false,
      kind: "aborted",
      message: "the call was aborted while the model loaded",
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    // given up, not failed: the next query loads the model and answers
    const next = await model.query(REQUEST);
    expect(next.ok).toBe(true);
  });

  it("knows each tensor type's block as the runtime's llama.cpp does", async () => {
    const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
    const llama = await getLlama({
      gpu: false,
      build: "never",
      progressLogs: false,
      logLevel: LlamaLogLevel.error,
    });
    try {
      const b = (llama as unknown as { _bindings: Record<string, (t: number) => number | undefined> })
        ._bindings;
      for (let code = 0; code < 64; code++) {
        const block = b.getBlockSizeForGgmlType(code);
        const mine = ggmlType(code);
        if (!mine) expect(block ?? 0, `type ${code}`).toBe(0);
        else expect([block, b.getTypeSizeForGgmlType(code)], mine.name).toEqual([mine.block, mine.bytes]);
      }
      expect(GGML_TYPE_CODES.length).toBe(35);
    } finally {
      await llama.dispose();
    }
  });
});
