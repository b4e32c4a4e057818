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
        content: 'Error: unknown tool "grep"; the tools are: bash, str_replace_editor.',
      },
      {
        role: "user",
        content: defaultFormatError('unknown tool "grep"; the tools are: bash, str_replace_editor.'),
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
        content: 'Error: the arguments of bash are not valid JSON; received: {"command": "ls"',
      },
      {
        role: "user",
        content: defaultFormatError('the arguments of bash are not valid JSON; received: {"command": "ls"'),
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
        content: 'Error: bash needs the argument(s) command; received: {"cmd":"ls"}',
      },
      {
        role: "user",
        content: defaultFormatError('bash needs the argument(s) command; received: {"cmd":"ls"}'),
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
    expect(run.result.exitMessage).toBe(
      `3 replies in a row could not be parsed; last: bash needs the argument(s) command; received: {"cmd":"ls"}`,
    );
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
      error: `found no ${FENCE} block in your reply.`,
    },
    {
      name: "zero blocks of the tag, one of another",
      text: "THOUGHT: look\n```bash\nls\n```",
      error: `found no ${FENCE} block in your reply. It has 1 other fenced block(s): \`\`\`bash; only ${FENCE} blocks run.`,
    },
    {
      name: "two blocks",
      text: `THOUGHT: two\n${FENCE}\nls\n\`\`\`\n${FENCE}\npwd\n\`\`\``,
      error: `found 2 ${FENCE} blocks (opening on lines 2, 5); put exactly one in each reply, joining commands with && if needed.`,
    },
    {
      name: "an unclosed block",
      text: `THOUGHT: open\n${FENCE}\nls -la\n`,
      error: `the ${FENCE} block opened on line 2 is never closed with a line of three backticks.`,
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
