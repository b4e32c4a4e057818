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
    const FORM = 'The form expected: a call of bash with the arguments {"command":"<command>"}.';
    const UNKNOWN = `unknown tool "python"; the tools are: bash, str_replace_editor. Call one of them by its name, e.g. a call of bash with the arguments {"command":"<command>"}.`;
    const BAD_JSON = `the arguments of bash are not valid JSON (Expected property name or '}' in JSON at position 1); received: {command: ls}. ${FORM} Write them as one JSON object: keys and strings in double quotes, newlines and quotes inside strings escaped (\\n, \\").`;
    const MISSING = `bash needs the argument(s) command; received: {"cmd":"ls"}. ${FORM}`;
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
      error: [UNKNOWN, BAD_JSON, MISSING].join(" "),
      toolReplies: [
        { id: "a", text: `Error: ${UNKNOWN}` },
        { id: "b", text: `Error: ${BAD_JSON}` },
        { id: "c", text: `Error: ${MISSING}` },
        { id: "d", text: "Not run: another tool call in the same reply was invalid. Send the calls again." },
      ],
    });
  });

  it("rejects arguments that are JSON but not an object", () => {
    expect(proto.parse(reply([call("a", "bash", '["ls"]')]))).toMatchObject({
      ok: false,
      error:
        'the arguments of bash must be a JSON object, not an array; received: ["ls"]. The form expected: a call of bash with the arguments {"command":"<command>"}.',
    });
  });
});
