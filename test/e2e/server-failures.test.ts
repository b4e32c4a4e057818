import { describe, expect, it } from "vitest";
import {
  anthropicPromptTooLongBody,
  openaiErrorBody,
  vllmContextLengthBody,
} from "../../src/testing/fake-llm-errors.js";
import type { FakeBehaviour } from "../../src/testing/fake-llm-server.js";
import { bashReply, fakeServer, requestMessages, runTask, SUBMIT } from "./harness.js";

const http500: FakeBehaviour = { type: "error", status: 500, body: openaiErrorBody("engine overloaded") };
const BROKEN = '{"id": "chatcmpl-broken", "choices": [';

describe("a server that fails: the task recovers or ends with the right status", () => {
  it("500 twice, then a reply: retried with backoff, and the task goes on to submit", async () => {
    const server = await fakeServer();
    server.enqueue(http500, http500, bashReply(SUBMIT));
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("Submitted");
    expect(run.result.exitMessage).toBe("the agent submitted its work");
    expect(server.requests).toHaveLength(3);
    expect(run.waits).toEqual([1000, 2000]);
    // every retry sends the same conversation
    expect(requestMessages(server, 1)).toEqual(requestMessages(server, 0));
    expect(requestMessages(server, 2)).toEqual(requestMessages(server, 0));
    expect(run.traj.info.model_stats.api_calls).toBe(1);
    expect(run.traj.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
  });

  it("a server that never answers: ModelError naming the timeout, quickly, after the retry budget", async () => {
    const server = await fakeServer({ type: "hang" });
    const run = await runTask(server, {
      configArgs: ["model.request_timeout=0.3", "model.retry.max_tries=2"],
    });
    expect(run.result.exitStatus).toBe("ModelError");
    expect(run.result.exitMessage).toBe(
      "openai/fake: gave up after 2 tries; last error: no response within 0.3 s (model.request_timeout)",
    );
    expect(server.requests).toHaveLength(2);
    expect(run.elapsedMs).toBeLessThan(5000);
    expect(run.traj.info.model_stats.api_calls).toBe(0);
    expect(run.traj.messages.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("a dropped connection, a cut-off body and invalid JSON are retried; then the task submits", async () => {
    const server = await fakeServer();
    server.enqueue(
      { type: "close" },
      { type: "close", partialBody: '{"id": "chatcmpl-1", "choi' },
      { type: "invalid_json" },
      bashReply(SUBMIT),
    );
    const run = await runTask(server, { configArgs: ["model.retry.max_tries=4"] });
    expect(run.result.exitStatus).toBe("Submitted");
    expect(server.requests).toHaveLength(4);
    expect(run.waits).toEqual([1000, 2000, 4000]);
    expect(run.traj.info.model_stats.api_calls).toBe(1);
  });

  it("invalid JSON until the budget is spent: ModelError quoting what was received", async () => {
    const server = await fakeServer({ type: "invalid_json" });
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("ModelError");
    expect(run.result.exitMessage).toBe(
      `openai/fake: gave up after 3 tries; last error: HTTP 200 with a body that is not valid JSON: ${BROKEN}`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it("connections dropped until the budget is spent: ModelError saying the connection failed", async () => {
    const server = await fakeServer({ type: "close" });
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("ModelError");
    expect(run.result.exitMessage).toBe(
      "openai/fake: gave up after 3 tries; last error: connection failed: socket hang up (ECONNRESET)",
    );
    expect(server.requests).toHaveLength(3);
  });

  it("vLLM's 400 'maximum context length': ContextExceeded at once, not retried", async () => {
    const server = await fakeServer();
    server.enqueue(bashReply("echo one"), { type: "error", status: 400, body: vllmContextLengthBody() });
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("ContextExceeded");
    expect(run.result.exitMessage).toBe(
      "openai/fake: context length exceeded (HTTP 400: This model's maximum context length is 32768 tokens. " +
        "However, you requested 34816 tokens (32768 in the messages, 2048 in the completion). " +
        "Please reduce the length of the messages or completion.)",
    );
    expect(server.requests).toHaveLength(2);
    expect(run.waits).toEqual([]);
    expect(run.traj.info.model_stats.api_calls).toBe(1);
  });

  it("Anthropic's 'prompt is too long' through the Anthropic client: ContextExceeded", async () => {
    const server = await fakeServer();
    server.enqueue({ type: "error", status: 400, body: anthropicPromptTooLongBody() });
    const run = await runTask(server, { wire: "anthropic" });
    expect(run.result.exitStatus).toBe("ContextExceeded");
    expect(run.result.exitMessage).toBe(
      "anthropic/claude-fake: context length exceeded (HTTP 400: prompt is too long: 208310 tokens > 200000 maximum)",
    );
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/messages"]);
  });

  it("401: ModelError at once, one request, a hint about the key", async () => {
    const server = await fakeServer({
      type: "error",
      status: 401,
      body: openaiErrorBody("Incorrect API key provided", "invalid_request_error", "invalid_api_key"),
    });
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("ModelError");
    expect(run.result.exitMessage).toBe(
      "openai/fake: HTTP 401: Incorrect API key provided (check the API key and model.api_key_env) (not retried)",
    );
    expect(server.requests).toHaveLength(1);
    expect(run.waits).toEqual([]);
  });
});
