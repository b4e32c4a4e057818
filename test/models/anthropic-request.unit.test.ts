import { describe, expect, it } from "vitest";
import { imageBlock, toAnthropicConversation } from "../../src/models/anthropic-request.js";

describe("toAnthropicConversation", () => {
  it("fills turns left empty, merges consecutive user messages, and omits system/tools when absent", () => {
    expect(
      toAnthropicConversation([
        { role: "user", content: "task" },
        { role: "user", content: "more" },
        { role: "assistant", content: "" },
        { role: "user", content: "" },
      ]),
    ).toEqual({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "task" },
            { type: "text", text: "more" },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "(empty)" }] },
        { role: "user", content: [{ type: "text", text: "(empty)" }] },
      ],
    });
  });

  it("keeps tool arguments that are not a JSON object under unparsed_arguments", () => {
    const conv = toAnthropicConversation([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "t1", type: "function", function: { name: "bash", arguments: "{not json" } },
          { id: "t2", type: "function", function: { name: "bash", arguments: "[1,2]" } },
        ],
      },
    ]);
    expect(conv.messages[0].content).toEqual([
      { type: "tool_use", id: "t1", name: "bash", input: { unparsed_arguments: "{not json" } },
      { type: "tool_use", id: "t2", name: "bash", input: { unparsed_arguments: "[1,2]" } },
    ]);
  });

  it("rejects a tool message without tool_call_id", () => {
    expect(() => toAnthropicConversation([{ role: "tool", content: "x" }])).toThrow(
      "cannot convert the conversation for the Anthropic API: a tool message has no tool_call_id",
    );
  });

  it("turns data URLs and http URLs into image sources", () => {
    expect(imageBlock("data:image/jpeg;base64,AAAA")).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/jpeg", data: "AAAA" },
    });
    expect(imageBlock("http://h/x.png")).toEqual({
      type: "image",
      source: { type: "url", url: "http://h/x.png" },
    });
    expect(() => imageBlock("data:image/svg+xml,<svg/>")).toThrow(
      'an image_url must be a base64 data URL or an http(s) URL; received "data:image/svg+xml,<svg/>"',
    );
  });
});

describe("OpenAI-only request fields sent to Anthropic", () => {
  it("parallel_tool_calls becomes tool_choice.disable_parallel_tool_use, or goes away", async () => {
    const { translateOpenAIKwargs } = await import("../../src/models/anthropic-model.js");
    expect(translateOpenAIKwargs({ parallel_tool_calls: false, temperature: 0 })).toEqual({
      temperature: 0,
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    expect(translateOpenAIKwargs({ parallel_tool_calls: true, top_k: 5 })).toEqual({ top_k: 5 });
  });
});
