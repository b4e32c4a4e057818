import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { createModel } from "../../src/models/factory/create-model.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
});

describe("model calls and the caller's abort signal", () => {
  it.each(["openai", "anthropic"])("%s: no abort listener is left behind after a call", async (provider) => {
    server = await startFakeLlmServer({ defaultBehaviour: { type: "reply", content: "ok" } });
    const { config } = loadConfig({
      configArgs: [
        `model.model_name=${provider}/m`,
        `model.base_url=${server.url}${provider === "openai" ? "/v1" : ""}`,
      ],
      defaultConfig: "default",
    });
    const model = createModel(config.model, { env: {} });
    const ctl = new AbortController();
    for (let i = 0; i < 12; i++) {
      const r = await model.query({ messages: [{ role: "user", content: "hi" }], signal: ctl.signal });
      expect(r.ok).toBe(true);
    }
    expect(getEventListeners(ctl.signal, "abort").length).toBe(0);
  });
});
