import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../../src/models/scripted.js";
import type { ChatMessage } from "../../src/models/types.js";

describe("ScriptedModel", () => {
  it("answers in order: replies, tool calls, errors and functions of the request", async () => {
    const model = new ScriptedModel(
      [
        { content: "hello", usage: { prompt_tokens: 10 }, cost: 0.5 },
        {
          toolCalls: [
            { name: "bash", arguments: { command: "ls" } },
            { name: "bash", arguments: "{}", id: "own" },
          ],
        },
        { error: "context_exceeded", message: "too long" },
        (req) => ({ content: `you said ${req.messages.length} messages`, finishReason: "length" }),
      ],
      { vision: true },
    );
    expect(model.name).toBe("scripted");
    expect(model.vision).toBe(true);
    const msgs: ChatMessage[] = [{ role: "user", content: "hi" }];
    expect(await model.query({ messages: msgs })).toEqual({
      ok: true,
      message: { role: "assistant", content: "hello" },
      finishReason: "stop",
      usage: { prompt_tokens: 10, completion_tokens: 0 },
      cost: 0.5,
      raw: { scripted: 1 },
      tries: 1,
    });
    const second = await model.query({ messages: msgs });
    expect(second.ok && [second.message, second.finishReason]).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_2_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          { id: "own", type: "function", function: { name: "bash", arguments: "{}" } },
        ],
      },
      "tool_calls",
    ]);
    expect(await model.query({ messages: msgs })).toEqual({
      ok: false,
      kind: "context_exceeded",
      message: "too long",
      tries: 1,
    });
    const fourth = await model.query({ messages: [...msgs, { role: "user", content: "again" }] });
    expect(fourth.ok && [fourth.message.content, fourth.finishReason]).toEqual([
      "you said 2 messages",
      "length",
    ]);
    model.assertAllUsed();
  });

  it("records deep copies of the requests", async () => {
    const model = new ScriptedModel([{ content: "a" }]);
    const msgs: ChatMessage[] = [{ role: "user", content: "first" }];
    const tools = [{ name: "bash", description: "d", parameters: {} }];
    await model.query({ messages: msgs, tools });
    msgs.push({ role: "user", content: "later" });
    expect(model.calls).toEqual([{ messages: [{ role: "user", content: "first" }], tools }]);
  });

  it("throws on a call past the end, naming the count and the last message", async () => {
    const model = new ScriptedModel([{ content: "only" }]);
    await model.query({ messages: [{ role: "user", content: "one" }] });
    await expect(
      model.query({
        messages: [
          { role: "system", content: "s" },
          { role: "tool", content: "exit 0", tool_call_id: "c" },
        ],
      }),
    ).rejects.toThrow(
      "ScriptedModel: call 2 but only 1 responses were scripted; last message received: (tool) exit 0",
    );
  });

  it("assertAllUsed lists the unused responses", async () => {
    const model = new ScriptedModel([
      { content: "a" },
      { content: "b" },
      { error: "fatal" },
      () => ({ content: "c" }),
    ]);
    await model.query({ messages: [{ role: "user", content: "x" }] });
    expect(() => model.assertAllUsed()).toThrow(
      'ScriptedModel: 3 of 4 scripted responses were not used: #2 {"content":"b"}; #3 {"error":"fatal"}; #4 (function)',
    );
  });
});
