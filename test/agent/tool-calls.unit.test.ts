import { describe, expect, it } from "vitest";
import { createToolCallsProtocol } from "../../src/agent/protocols/tool-calls.js";
import type { ChatMessage, ToolCall } from "../../src/models/types.js";

const specs = [
  {
    name: "bash",
    description: "run",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
  {
    name: "str_replace_editor",
    description: "edit",
    parameters: { type: "object", properties: {}, required: ["command", "path"] },
  },
];
const proto = createToolCallsProtocol(specs);
const call = (id: string, name: string, args: string): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: args },
});
const reply = (tool_calls?: ToolCall[]): ChatMessage => ({
  role: "assistant",
  content: "thinking",
  tool_calls,
});

describe("tool_calls protocol", () => {
  it("runs several calls in order", () => {
    expect(
      proto.parse(
        reply([
          call("a", "bash", '{"command":"ls"}'),
          call("b", "str_replace_editor", '{"command":"view","path":"/x"}'),
        ]),
      ),
    ).toEqual({
      ok: true,
      actions: [
        { kind: "tool", id: "a", name: "bash", args: { command: "ls" } },
        { kind: "tool", id: "b", name: "str_replace_editor", args: { command: "view", path: "/x" } },
      ],
      thought: "thinking",
    });
  });

  it("rejects a reply without tool calls and an empty list, differently", () => {
    expect(proto.parse(reply(undefined))).toEqual({
      ok: false,
      error:
        'your reply had no tool call, only text: "thinking". Every reply must call at least one of the tools (bash, str_replace_editor); to finish, submit with the bash tool.',
    });
    expect(proto.parse(reply([]))).toEqual({
      ok: false,
      error:
        'your reply had an empty tool_calls list, only text: "thinking". Every reply must call at least one of the tools (bash, str_replace_editor); to finish, submit with the bash tool.',
    });
  });

  it("names an unknown tool, unparseable arguments and a missing argument, and answers every call id", () => {
    const r = proto.parse(
      reply([
        call("a", "python", "{}"),
        call("b", "bash", "{command: ls}"),
        call("c", "bash", '{"cmd":"ls"}'),
        call("d", "bash", '{"command":"ls"}'),
      ]),
    );
    expect(r).toEqual({
      ok: false,
      error:
        'unknown tool "python"; the tools are: bash, str_replace_editor. ' +
        "the arguments of bash are not valid JSON; received: {command: ls} " +
        'bash needs the argument(s) command; received: {"cmd":"ls"}',
      toolReplies: [
        { id: "a", text: 'Error: unknown tool "python"; the tools are: bash, str_replace_editor.' },
        { id: "b", text: "Error: the arguments of bash are not valid JSON; received: {command: ls}" },
        { id: "c", text: 'Error: bash needs the argument(s) command; received: {"cmd":"ls"}' },
        { id: "d", text: "Not run: another tool call in the same reply was invalid. Send the calls again." },
      ],
    });
  });

  it("rejects arguments that are JSON but not an object", () => {
    expect(proto.parse(reply([call("a", "bash", '["ls"]')]))).toMatchObject({
      ok: false,
      error: 'the arguments of bash must be a JSON object; received: ["ls"]',
    });
  });
});
