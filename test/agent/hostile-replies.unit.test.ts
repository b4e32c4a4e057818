import { describe, expect, it } from "vitest";
import { createBackticksProtocol } from "../../src/agent/protocols/backticks.js";
import { createToolCallsProtocol } from "../../src/agent/protocols/tool-calls.js";
import { parseAnthropicMessage } from "../../src/models/anthropic-response.js";
import { parseCompletion } from "../../src/models/openai-wire.js";
import type { ChatMessage, ToolSpec } from "../../src/models/types.js";
import { anthropicMessageBody } from "../../src/testing/fake-llm-wire.js";

const specs: ToolSpec[] = [
  { name: "bash", description: "", parameters: { type: "object", required: ["command"] } },
  {
    name: "str_replace_editor",
    description: "",
    parameters: { type: "object", required: ["command", "path"] },
  },
];
const tools = createToolCallsProtocol(specs);
const call = (name: string, args: string): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id: "c1", type: "function", function: { name, arguments: args } }],
});
const deep = (n: number) => `{"command": ${"[".repeat(n)}1${"]".repeat(n)}}`;

describe("replies that must not crash the scaffold become format errors", () => {
  it("tool-call arguments nested 100,000 levels deep", () => {
    const parsed = tools.parse(call("bash", deep(100_000)));
    expect(parsed).toMatchObject({
      ok: false,
      error:
        'the arguments of bash are nested more than 64 levels deep; send a flat JSON object. The form expected: a call of bash with the arguments {"command":"<command>"}.',
    });
    expect(tools.parse(call("bash", deep(60))).ok).toBe(true);
  });

  it("an Anthropic tool_use input nested 100,000 deep reaches the protocol as text, not a stack overflow", () => {
    let input: unknown = 1;
    for (let i = 0; i < 100_000; i++) input = [input];
    const body = anthropicMessageBody(
      { toolCalls: [{ name: "bash", arguments: { command: input } as Record<string, unknown> }] },
      1,
    );
    const { message } = parseAnthropicMessage(body);
    expect(message.tool_calls?.[0].function.arguments.length).toBe(200_013);
    expect(tools.parse(message)).toMatchObject({ ok: false });
    const openai = parseCompletion({
      choices: [
        {
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "x", function: { name: "bash", arguments: { command: input } } }],
          },
        },
      ],
    });
    expect(tools.parse(openai.message)).toMatchObject({ ok: false });
  });

  it("a NUL byte in a command or an editor path is refused with what to do", () => {
    expect(tools.parse(call("bash", JSON.stringify({ command: "ls\u0000 -la" })))).toMatchObject({
      ok: false,
      error:
        "the command argument of bash contains a NUL byte (character 0, at position 3), which bash and file names cannot hold. Remove it; to produce one in a file or a pipe, write it as an escape, e.g. printf '\\0'.",
    });
    expect(
      tools.parse(call("str_replace_editor", JSON.stringify({ command: "view", path: "/testbed/a\u0000b" }))),
    ).toMatchObject({
      ok: false,
      error: expect.stringContaining("the path argument of str_replace_editor contains a NUL byte"),
    });
    const backticks = createBackticksProtocol("mswea_bash_command", null);
    expect(
      backticks.parse({
        role: "assistant",
        content: "```mswea_bash_command\nedit-tool view --file /a\u0000b\n```",
      }),
    ).toMatchObject({
      ok: false,
      error: expect.stringContaining("the command contains a NUL byte (character 0, at position 25)"),
    });
  });

  it("odd shapes: arguments that are not text, a name that is not a string, content parts without text", () => {
    const odd = {
      role: "assistant",
      content: [{ type: "text" }, { type: "image_url", image_url: { url: "x" } }],
      tool_calls: [{ id: 7, type: "function", function: { name: { x: 1 }, arguments: { command: "ls" } } }],
    } as unknown as ChatMessage;
    expect(tools.parse(odd)).toMatchObject({ ok: false, error: expect.stringContaining("unknown tool") });
    const notText = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "a", type: "function", function: { name: "bash", arguments: 5 } }],
    } as unknown as ChatMessage;
    expect(tools.parse(notText)).toMatchObject({
      ok: false,
      error:
        'the arguments of bash must be a JSON object written as text. The form expected: a call of bash with the arguments {"command":"<command>"}.',
    });
    expect(createBackticksProtocol("x", null).parse(odd)).toMatchObject({ ok: false });
    expect(
      tools.parse({ role: "assistant", content: null, tool_calls: "nope" } as unknown as ChatMessage),
    ).toMatchObject({ ok: false });
  });

  it("a heredoc left open does not swallow the closing fence", () => {
    const p = createBackticksProtocol("mswea_bash_command", null);
    expect(
      p.parse({ role: "assistant", content: "```mswea_bash_command\ncat << EOF\nhello\n```\n" }),
    ).toEqual({
      ok: true,
      actions: [{ kind: "command", command: "cat << EOF\nhello" }],
      thought: "",
    });
  });
});
