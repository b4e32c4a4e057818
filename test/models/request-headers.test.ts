import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createModel } from "../../src/models/factory/create-model.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { VERSION } from "../../src/version.js";
import { modelConfig } from "./helpers.js";

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer({ defaultBehaviour: { type: "reply", content: "ok" } });
});
afterEach(() => server.close());

/** The headers of the one request a query sent, less those Node's http client adds itself. */
async function headersSent(
  model: string,
  base: string,
  env: NodeJS.ProcessEnv,
  config = {},
): Promise<Record<string, unknown>> {
  const m = createModel(modelConfig({ model_name: model, base_url: base, ...config }), { env });
  const result = await m.query({ messages: [{ role: "user", content: "hi" }] });
  expect(result.ok).toBe(true);
  const { host, connection, "content-length": length, ...rest } = server.requests[0].headers;
  expect([host, connection, Number(length)]).toEqual([
    server.url.slice("http://".length),
    "keep-alive",
    JSON.stringify(server.requests[0].body).length,
  ]);
  return rest;
}

describe("the headers of a model request", () => {
  it("openai: JSON both ways, the key as Bearer, patchloop's user agent, nothing of an SDK's", async () => {
    expect(await headersSent("openai/m", `${server.url}/v1`, { OPENAI_API_KEY: "sk-1" })).toEqual({
      accept: "application/json",
      "content-type": "application/json",
      authorization: "Bearer sk-1",
      "user-agent": `patchloop/${VERSION}`,
    });
  });

  it("openai: the organization and project of OPENAI_ORG_ID / OPENAI_PROJECT_ID", async () => {
    const env = { OPENAI_ORG_ID: "org-7", OPENAI_PROJECT_ID: "proj-9" };
    expect(await headersSent("openai/m", `${server.url}/v1`, env)).toMatchObject({
      authorization: "Bearer not-needed",
      "openai-organization": "org-7",
      "openai-project": "proj-9",
    });
  });

  it("anthropic: the same, with anthropic-version", async () => {
    expect(await headersSent("anthropic/c", server.url, { ANTHROPIC_API_KEY: "sk-ant-2" })).toEqual({
      accept: "application/json",
      "content-type": "application/json",
      authorization: "Bearer sk-ant-2",
      "user-agent": `patchloop/${VERSION}`,
      "anthropic-version": "2026-10-21",
    });
  });

  it("a request_timeout past setTimeout's range waits for the reply instead of firing at once", async () => {
    server.enqueue({ type: "reply", content: "late", delayMs: 100 });
    const m = createModel(modelConfig({ base_url: `${server.url}/v1`, request_timeout: 3e6 }), { env: {} });
    const result = await m.query({ messages: [{ role: "user", content: "hi" }] });
    expect(result.ok && result.message.content).toBe("late");
  });
});
