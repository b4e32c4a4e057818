import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { servedModelNames } from "../../src/models/server-detect.js";

describe("servedModelNames", () => {
  it("reads vLLM's root and llama.cpp's model file from GET /models, and nothing from a dead server", async () => {
    let listing: unknown = {};
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(listing));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      listing = {
        object: "list",
        data: [{ id: "coder", owned_by: "vllm", root: "/models/Qwen3-Coder-30B", max_model_len: 65536 }],
      };
      expect(await servedModelNames(base, "coder")).toEqual(["/models/Qwen3-Coder-30B"]);
      listing = {
        models: [{ name: "local", model: "/m/gemma-4-26b-a4b-it-Q4_K_M.gguf" }],
        data: [{ id: "local", owned_by: "llamacpp" }],
      };
      expect(await servedModelNames(base, "local")).toEqual(["/m/gemma-4-26b-a4b-it-Q4_K_M.gguf"]);
      listing = { data: [{ id: "other", root: "x" }] };
      expect(await servedModelNames(base, "coder")).toEqual([]);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await servedModelNames(base, "coder", 500)).toEqual([]);
  });
});
