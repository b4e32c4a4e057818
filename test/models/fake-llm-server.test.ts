import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { waitUntil } from "../support/wait-for.js";

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(
  path: string,
  body: unknown,
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${server?.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe("fake LLM server", () => {
  it("binds to 127.0.0.1 and fails loudly when nothing is queued", async () => {
    server = await startFakeLlmServer();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await post("/v1/chat/completions", { model: "m", messages: [] });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      error: { message: "fake LLM server: request #1 arrived but no behaviour was queued" },
    });
  });

  it("answers unknown paths with 404 and records every request", async () => {
    server = await startFakeLlmServer();
    const res = await post("/v1/completions", { prompt: "x" });
    expect(res.status).toBe(404);
    expect(server.requests).toEqual([
      expect.objectContaining({ method: "POST", path: "/v1/completions", body: { prompt: "x" } }),
    ]);
  });

  it("sends error statuses with their headers and verbatim text bodies", async () => {
    server = await startFakeLlmServer();
    server.enqueue({ type: "error", status: 429, body: "slow down", headers: { "retry-after": "3" } });
    const res = await post("/v1/messages", {});
    expect([res.status, res.text, res.headers.get("retry-after"), res.headers.get("content-type")]).toEqual([
      429,
      "slow down",
      "3",
      "text/plain",
    ]);
  });

  it("waits delayMs before answering", async () => {
    server = await startFakeLlmServer();
    server.enqueue({ type: "reply", content: "late", delayMs: 150 });
    const started = Date.now();
    const res = await post("/v1/chat/completions", {});
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(JSON.parse(res.text).choices[0].message.content).toBe("late");
  });

  it("serves a default reply repeatedly without recording when asked to (load mode)", async () => {
    server = await startFakeLlmServer({ defaultBehaviour: { type: "reply", content: "ok" }, record: false });
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => post("/v1/messages", { model: "m", max_tokens: 5, messages: [] })),
    );
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect(JSON.parse(replies[0].text)).toEqual({
      id: "msg_fake_0",
      type: "message",
      role: "assistant",
      model: "fake-model",
      content: [{ type: "text", text: "ok" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    expect(server.requests).toEqual([]);
  });

  it("closes hanging connections on close()", async () => {
    server = await startFakeLlmServer();
    server.enqueue({ type: "hang" });
    const pending = post("/v1/chat/completions", {}).then(
      () => "answered",
      () => "connection dropped",
    );
    await waitUntil("the request reached the server (and hangs)", () => server?.pending() === 0);
    await server.close();
    server = undefined;
    expect(await pending).toBe("connection dropped");
  });
});
