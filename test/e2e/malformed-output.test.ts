import { describe, expect, it } from "vitest";
import type { FakeBehaviour } from "../../src/testing/fake-llm-server.js";
import {
  bashReply,
  defaultFormatError,
  fakeServer,
  requestMessages,
  runTask,
  SUBMIT,
  type TaskOptions,
  textReply,
} from "./harness.js";

const TOOLS_HINT =
  "Every reply must call at least one of the tools (bash, str_replace_editor); to finish, submit with the bash tool.";
const FORM = 'The form expected: a call of bash with the arguments {"command":"<command>"}.';
const UNKNOWN = `unknown tool "grep"; the tools are: bash, str_replace_editor. Call one of them by its name, e.g. a call of bash with the arguments {"command":"<command>"}.`;
const BAD_JSON = `the arguments of bash are not valid JSON (Expected ',' or '}' after property value in JSON at position 16); received: {"command": "ls". ${FORM} Write them as one JSON object: keys and strings in double quotes, newlines and quotes inside strings escaped (\\n, \\").`;
const MISSING = `bash needs the argument(s) command; received: {"cmd":"ls"}. ${FORM}`;
const BACKTICKS: TaskOptions = { builtin: "swebench_backticks" };
const FENCE = "```mswea_bash_command";
const block = (command: string) => textReply(`THOUGHT: go\n${FENCE}\n${command}\n\`\`\``);
const backticksError = (error: string) =>
  `Your reply could not be run: ${error}\nReply with a THOUGHT and exactly one ${FENCE} block.`;

/** A 200 reply body written by hand (for shapes the fake server's reply builder does not make). */
function rawCompletion(message: Record<string, unknown>, finishReason: string): FakeBehaviour {
  return {
    type: "error",
    status: 200,
    body: {
      id: "chatcmpl-raw",
      object: "chat.completion",
      created: 1,
      model: "fake-model",
      choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finishReason }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

interface ToolCase {
  name: string;
  reply: FakeBehaviour;
  /** What the request after the bad reply ends with (tool replies, then the format error). */
  expected: Array<Record<string, unknown>>;
}

const toolCases: ToolCase[] = [
  {
    name: "a call of an unknown tool",
    reply: { type: "reply", toolCalls: [{ id: "call_u", name: "grep", arguments: { pattern: "add" } }] },
    expected: [
      {
        role: "tool",
        tool_call_id: "call_u",
        content: `Error: ${UNKNOWN}`,
      },
      {
        role: "user",
        content: defaultFormatError(UNKNOWN),
      },
    ],
  },
  {
    name: "arguments that are not JSON",
    reply: { type: "reply", toolCalls: [{ id: "call_j", name: "bash", arguments: '{"command": "ls"' }] },
    expected: [
      {
        role: "tool",
        tool_call_id: "call_j",
        content: `Error: ${BAD_JSON}`,
      },
      {
        role: "user",
        content: defaultFormatError(BAD_JSON),
      },
    ],
  },
  {
    name: "a missing argument",
    reply: { type: "reply", toolCalls: [{ id: "call_m", name: "bash", arguments: { cmd: "ls" } }] },
    expected: [
      {
        role: "tool",
        tool_call_id: "call_m",
        content: `Error: ${MISSING}`,
      },
      {
        role: "user",
        content: defaultFormatError(MISSING),
      },
    ],
  },
  {
    name: "no tool call",
    reply: { type: "reply", content: "I believe the bug is in add()." },
    expected: [
      {
        role: "user",
        content: defaultFormatError(
          `your reply had no tool call, only text: "I believe the bug is in add().". ${TOOLS_HINT}`,
        ),
      },
    ],
  },
];

describe("malformed model output through the real server (tool_calls)", () => {
  it.each(toolCases)("$name: the format error goes back to the model, then it submits", async (c) => {
    const server = await fakeServer();
    server.enqueue(c.reply, bashReply(SUBMIT));
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("Submitted");
    expect(server.requests).toHaveLength(2);
    const next = requestMessages(server, 1);
    expect(next.slice(3)).toEqual([...c.expected]);
    expect(next[2].role).toBe("assistant");
    const errorMessages = run.traj.messages.filter((m) => m.extra?.format_error === true);
    expect(errorMessages).toHaveLength(c.expected.length);
  });

  it("an empty tool_calls list gets a format error and the loop goes on", async () => {
    const server = await fakeServer();
    server.enqueue(rawCompletion({ content: "thinking", tool_calls: [] }, "tool_calls"), bashReply(SUBMIT));
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("Submitted");
    const last = requestMessages(server, 1).at(-1);
    expect(last?.role).toBe("user");
    expect(String(last?.content)).toMatch(
      /^Your reply could not be run: your reply had (no tool call|an empty tool_calls list), only text: /,
    );
  });

  it("an empty tool_calls list is named as such in the format error", async () => {
    const server = await fakeServer();
    server.enqueue(rawCompletion({ content: "thinking", tool_calls: [] }, "tool_calls"), bashReply(SUBMIT));
    await runTask(server);
    expect(requestMessages(server, 1).at(-1)).toEqual({
      role: "user",
      content: defaultFormatError(
        `your reply had an empty tool_calls list, only text: "thinking". ${TOOLS_HINT}`,
      ),
    });
  });

  it("three bad replies in a row end the task with RepeatedFormatError; a good one in between resets the count", async () => {
    const server = await fakeServer();
    server.enqueue(toolCases[0].reply, toolCases[1].reply, bashReply("echo fine"));
    server.enqueue(toolCases[3].reply, toolCases[0].reply, toolCases[2].reply);
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("RepeatedFormatError");
    expect(run.result.exitMessage).toBe(`3 replies in a row could not be parsed; last: ${MISSING}`);
    expect(server.requests).toHaveLength(6);
    expect(server.pending()).toBe(0);
    expect(run.traj.info.model_stats.api_calls).toBe(6);
  });
});

describe("malformed model output through the real server (backticks)", () => {
  const cases = [
    {
      name: "zero blocks",
      text: "THOUGHT: the bug is in add(); I will run ls -la next.",
      error: `your reply has no ${FENCE} block, so nothing ran. End it with exactly one block holding the command, in the form expected:\n${FENCE}\n<command>\n\`\`\``,
    },
    {
      name: "zero blocks of the tag, one of another",
      text: "THOUGHT: look\n```bash\nls\n```",
      error: `your reply has no ${FENCE} block, so nothing ran: its command is in a \`\`\`bash block (line 2), and only ${FENCE} blocks run. The same command, in the form expected:\n${FENCE}\nls\n\`\`\``,
    },
    {
      name: "two blocks",
      text: `THOUGHT: two\n${FENCE}\nls\n\`\`\`\n${FENCE}\npwd\n\`\`\``,
      error: `your reply has 2 ${FENCE} blocks (lines 2, 5), and a reply runs exactly one: nothing ran. Send one block now (or join the commands with && in one block) and the next after its output; your first, in the form expected:\n${FENCE}\nls\n\`\`\``,
    },
    {
      name: "an unclosed block",
      text: `THOUGHT: open\n${FENCE}\nls -la\n`,
      error: `the ${FENCE} block opened on line 2 is never closed: nothing ran. Close it with a line of exactly three backticks, in the form expected:\n${FENCE}\nls -la\n\`\`\``,
    },
  ];

  it.each(cases)("$name: the format error goes back to the model, then it submits", async (c) => {
    const server = await fakeServer();
    server.enqueue(textReply(c.text), block(SUBMIT));
    const run = await runTask(server, BACKTICKS);
    expect(run.result.exitStatus).toBe("Submitted");
    expect(server.requests).toHaveLength(2);
    const next = requestMessages(server, 1);
    expect(next.slice(2)).toEqual([
      { role: "assistant", content: c.text },
      { role: "user", content: backticksError(c.error) },
    ]);
    expect(server.requests[0].body).not.toHaveProperty("tools");
  });

  it("zero, two, unclosed in a row: RepeatedFormatError", async () => {
    const server = await fakeServer();
    server.enqueue(...cases.filter((c) => c.name !== cases[1].name).map((c) => textReply(c.text)));
    const run = await runTask(server, BACKTICKS);
    expect(run.result.exitStatus).toBe("RepeatedFormatError");
    expect(run.result.exitMessage).toBe(`3 replies in a row could not be parsed; last: ${cases[3].error}`);
    expect(server.requests).toHaveLength(3);
  });
});
