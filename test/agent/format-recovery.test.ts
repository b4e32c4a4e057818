import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/agent.js";
import { createActionRunner } from "../../src/agent/create-runner.js";
import { textOf } from "../../src/agent/protocols/types.js";
import { loadConfig } from "../../src/config/load.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { ScriptedModel, type ScriptedReply } from "../../src/models/scripted.js";
import type { ModelRequest } from "../../src/models/types.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/**
 * Each kind of format error, made once by a scripted model that then follows what the format
 * error showed it: the block (or the tool call) the message gives "in the form expected", with the
 * command it meant where the message shows a placeholder. A message that does not show the form
 * leaves the model repeating its mistake, so the run ends RepeatedFormatError instead of submitting
 * at step 2. (issue 43: 71 of 151 failures of a local DeepSeek V4 Flash run were repeated format errors)
 */

const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";
const TAG = "mswea_bash_command";
const BACKTICKS = ["swebench_backticks", "environment.environment_class=local", "environment.cwd=''"];

/** The text of what the agent sent after the model's last reply (tool messages and the user message). */
function feedback(request: ModelRequest): string {
  const i = request.messages.map((m) => m.role).lastIndexOf("assistant");
  return request.messages
    .slice(i + 1)
    .map((m) => textOf(m))
    .join("\n");
}

/** A model that follows the form a format error shows, and repeats `mistake` when it shows none. */
function follower(mistake: ScriptedReply): (request: ModelRequest) => ScriptedReply {
  return (request) => {
    const text = feedback(request);
    const fenced = /in the form expected:\n```(\S+)\n([\s\S]*?)\n```/.exec(text);
    if (fenced) {
      const body = fenced[2] === "<command>" ? SUBMIT : fenced[2];
      return { content: `THOUGHT: as shown.\n\`\`\`${fenced[1]}\n${body}\n\`\`\`` };
    }
    const call = /a call of (\w+) with the arguments (\{.*?\})(?:\.|$)/m.exec(text);
    if (call) {
      const args = JSON.parse(call[2]) as Record<string, unknown>;
      for (const [k, v] of Object.entries(args)) if (v === `<${k}>`) args[k] = SUBMIT;
      return { content: "calling it properly", toolCalls: [{ name: call[1], arguments: args }] };
    }
    return mistake;
  };
}

async function recovery(mistake: ScriptedReply, configArgs: string[], follows = true) {
  const dir = tempDir();
  const repo = join(dir, "repo");
  makeRepo(repo, { "app.py": "x = 1\n" });
  const { config } = loadConfig({
    configArgs: ["default", "model.model_name=scripted", "agent.max_format_errors=2", ...configArgs],
    defaultConfig: "default",
  });
  const next = follows ? follower(mistake) : () => mistake;
  const model = new ScriptedModel([mistake, next, next]);
  const env = createLocalEnvironment({ cwd: repo, timeout: config.environment.timeout });
  try {
    const result = await runAgent({
      config,
      model,
      env,
      runner: createActionRunner(config),
      task: "Submit.",
      instance: { repo: "acme/app" },
      trajectoryPath: join(dir, "out", "t.traj.json"),
    });
    const errors = result.trajectory.messages.filter((m) => m.extra?.format_error && m.role === "user");
    return { status: result.exitStatus, calls: model.calls.length, errors: errors.map(textOf) };
  } finally {
    await env.close();
  }
}

describe("one format error of each kind, then the form the message showed: submitted at step 2", () => {
  it("no block at all", async () => {
    const r = await recovery({ content: "I will now submit the fix." }, BACKTICKS);
    expect(r).toEqual({
      status: "Submitted",
      calls: 2,
      errors: [
        `Your reply could not be run: your reply has no \`\`\`${TAG} block, so nothing ran. End it with exactly one block holding the command, in the form expected:\n\`\`\`${TAG}\n<command>\n\`\`\`\nReply with a THOUGHT and exactly one \`\`\`${TAG} block.`,
      ],
    });
  });

  it("the command in a block of the wrong fence", async () => {
    const r = await recovery({ content: `Submitting:\n\`\`\`bash\n${SUBMIT}\n\`\`\`` }, BACKTICKS);
    expect(r).toEqual({
      status: "Submitted",
      calls: 2,
      errors: [
        `Your reply could not be run: your reply has no \`\`\`${TAG} block, so nothing ran: its command is in a \`\`\`bash block (line 2), and only \`\`\`${TAG} blocks run. The same command, in the form expected:\n\`\`\`${TAG}\n${SUBMIT}\n\`\`\`\nReply with a THOUGHT and exactly one \`\`\`${TAG} block.`,
      ],
    });
  });

  it("two blocks", async () => {
    const r = await recovery(
      { content: `\`\`\`${TAG}\n${SUBMIT}\n\`\`\`\nand then\n\`\`\`${TAG}\nrm -rf build\n\`\`\`` },
      BACKTICKS,
    );
    expect(r).toEqual({
      status: "Submitted",
      calls: 2,
      errors: [
        `Your reply could not be run: your reply has 2 \`\`\`${TAG} blocks (lines 1, 5), and a reply runs exactly one: nothing ran. Send one block now (or join the commands with && in one block) and the next after its output; your first, in the form expected:\n\`\`\`${TAG}\n${SUBMIT}\n\`\`\`\nReply with a THOUGHT and exactly one \`\`\`${TAG} block.`,
      ],
    });
  });

  it("a block never closed", async () => {
    const r = await recovery({ content: `THOUGHT: done.\n\`\`\`${TAG}\n${SUBMIT}` }, BACKTICKS);
    expect(r).toEqual({
      status: "Submitted",
      calls: 2,
      errors: [
        `Your reply could not be run: the \`\`\`${TAG} block opened on line 2 is never closed: nothing ran. Close it with a line of exactly three backticks, in the form expected:\n\`\`\`${TAG}\n${SUBMIT}\n\`\`\`\nReply with a THOUGHT and exactly one \`\`\`${TAG} block.`,
      ],
    });
  });

  it("a tool call whose arguments are not JSON", async () => {
    const r = await recovery(
      { content: "submitting", toolCalls: [{ name: "bash", arguments: `{"command": "${SUBMIT}` }] },
      [],
    );
    expect(r).toEqual({
      status: "Submitted",
      calls: 2,
      errors: [
        `Your reply could not be run: the arguments of bash are not valid JSON (Unterminated string in JSON at position 55); received: {"command": "${SUBMIT}. The form expected: a call of bash with the arguments {"command":"<command>"}. Write them as one JSON object: keys and strings in double quotes, newlines and quotes inside strings escaped (\\n, \\").\nReply again with one or more tool calls.`,
      ],
    });
  });

  it("a model that does not follow the form still ends RepeatedFormatError after max_format_errors in a row", async () => {
    const r = await recovery(
      { content: "no block, again" },
      [...BACKTICKS, "agent.max_format_errors=3"],
      false,
    );
    expect([r.status, r.calls, r.errors.length]).toEqual(["RepeatedFormatError", 3, 3]);
  });
});
