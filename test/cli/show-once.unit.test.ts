import { describe, expect, it } from "vitest";
import { normalizeTrajectory } from "../../src/inspect/normalize.js";
import { renderTrajectoryText } from "../../src/inspect/terminal-render.js";

/** A patchloop trajectory as the agent writes it: a tool-call format error, then a command that timed out. */
function trajectory(): unknown {
  const formatError = { format_error: true, kind: "format_error", step: 1 };
  return {
    info: {
      format: "patchloop-1",
      instance_id: "calc",
      exit_status: "Submitted",
      submission: "",
      model_stats: { api_calls: 2, prompt_tokens: 0, completion_tokens: 0, cost: 0 },
    },
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "task" },
      {
        role: "assistant",
        content: "bad",
        tool_calls: [
          { id: "a", type: "function", function: { name: "nosuch", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
        ],
        extra: { step: 1 },
      },
      {
        role: "tool",
        tool_call_id: "a",
        content: 'Error: unknown tool "nosuch"; the tools are: bash.',
        extra: formatError,
      },
      {
        role: "tool",
        tool_call_id: "b",
        content: "Not run: another tool call in the same reply was invalid. Send the calls again.",
        extra: formatError,
      },
      {
        role: "user",
        content:
          'Your reply could not be run: unknown tool "nosuch"; the tools are: bash.\nReply again with one or more tool calls.',
        extra: formatError,
      },
      {
        role: "assistant",
        content: "slow",
        tool_calls: [
          { id: "c", type: "function", function: { name: "bash", arguments: '{"command":"sleep 9"}' } },
        ],
        extra: { step: 2 },
      },
      {
        role: "tool",
        tool_call_id: "c",
        content:
          "The command was stopped after 1 seconds; this is what it printed until then:\n<returncode>-1</returncode>\n" +
          "<error>the command timed out after 1 seconds and was stopped</error>\n<output>\nstart\n" +
          "[The command timed out after 1 second and was stopped; the output above is what it printed until then.]\n</output>",
        extra: { returncode: -1, timed_out: true, step: 2 },
      },
    ],
  };
}

describe("patchloop show prints each step once", () => {
  it("a tool-call format error once, a timeout's limit once; --full shows what the model got", () => {
    const view = normalizeTrajectory(trajectory(), "calc.traj.json");
    const text = renderTrajectoryText(view, { color: false, full: false });
    const steps = text.slice(text.indexOf("=== STEP 1"), text.indexOf("=== PATCH"));
    expect(steps).toBe(
      [
        "=== STEP 1 ===",
        "THOUGHT:",
        "bad",
        "ACTION [nosuch]:",
        "",
        "ACTION [bash]:",
        "ls",
        "OBSERVATION [FORMAT ERROR]:",
        'Your reply could not be run: unknown tool "nosuch"; the tools are: bash.',
        "Reply again with one or more tool calls.",
        "[the same error also went back as the reply to 2 tool calls; --full shows them]",
        "",
        "=== STEP 2 ===",
        "THOUGHT:",
        "slow",
        "ACTION [bash]:",
        "sleep 9",
        "OBSERVATION (returncode -1) [TIMED OUT]:",
        "The command was stopped after 1 seconds; this is what it printed until then:",
        "<returncode>-1</returncode>",
        "<output>",
        "start",
        "</output>",
        "[the time limit was stated 2 more times here; --full shows the observation as sent]",
        "",
        "",
      ].join("\n"),
    );
    const full = renderTrajectoryText(view, { color: false, full: true });
    expect(full).toContain(
      'OBSERVATION [FORMAT ERROR]:\nError: unknown tool "nosuch"; the tools are: bash.\n',
    );
    expect(full).toContain("<error>the command timed out after 1 seconds and was stopped</error>");
    expect(full.match(/timed out after 1 second/g)).toHaveLength(2);
  });
});
