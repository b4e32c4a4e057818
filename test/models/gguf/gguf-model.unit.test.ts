import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBackticksProtocol } from "../../../src/agent/protocols/backticks.js";
import { createToolCallsProtocol } from "../../../src/agent/protocols/tool-calls.js";
import { createModel } from "../../../src/models/create-model.js";
import { disposeRuntimes } from "../../../src/models/gguf/runtime.js";
import type { ChatMessage, ModelResult } from "../../../src/models/types.js";
import { createTools, toolSpecs } from "../../../src/tools/index.js";
import { describeWithGguf } from "../../support/gguf-runtime.js";
import { writeTinyModel } from "../../support/gguf-tiny-model.js";
import { modelConfig } from "../helpers.js";

const LEAN = { "\n": 2, "```": 3, '"': 2, "}": 2, "<|im_end|>": 3 };
const MESSAGES: ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant that can interact with a computer." },
  { role: "user", content: "List the files in the current directory." },
];

let dir: string;
let path: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "patchloop-gguf-"));
  path = writeTinyModel(dir, { lean: LEAN });
});
afterAll(async () => {
  await disposeRuntimes();
  rmSync(dir, { recursive: true, force: true });
});

function ggufModel(kwargs: Record<string, unknown> = {}) {
  return createModel(
    modelConfig({
      model_name: `gguf:${path}`,
      model_kwargs: { temperature: 1, seed: 7, max_tokens: 2000, ...kwargs },
      gguf: { context_size: 4096, threads: 1, gpu_layers: 0, sequences: 2 },
    }),
  );
}

function ok(r: ModelResult): Extract<ModelResult, { ok: true }> {
  if (!r.ok) throw new Error(`query failed: ${r.kind}: ${r.message}`);
  return r;
}

describeWithGguf("the embedded GGUF model", () => {
  it("writes exactly one fenced block when the backticks grammar constrains it", async () => {
    const protocol = createBackticksProtocol("bash", null);
    const model = ggufModel();
    const r = ok(await model.query({ messages: MESSAGES, constraint: protocol.constraint }));
    console.log(JSON.stringify(r.message.content), r.usage, r.finishReason);
    const parsed = protocol.parse(r.message);
    expect(parsed.ok).toBe(true);
  }, 60_000);

  it("writes one JSON call of a known tool when the tool-call grammar constrains it", async () => {
    const specs = toolSpecs(createTools(["bash", "str_replace_editor"]));
    const protocol = createToolCallsProtocol(specs);
    const model = ggufModel();
    const r = ok(await model.query({ messages: MESSAGES, tools: specs, constraint: protocol.constraint }));
    console.log(JSON.stringify(r.message), r.usage, r.finishReason);
    const parsed = protocol.parse(r.message);
    expect(parsed.ok).toBe(true);
  }, 60_000);
});
