import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createModel } from "../../src/models/factory/create-model.js";
import { TRAJECTORIES } from "../support/data.js";
import { modelConfig } from "./helpers.js";

const sharedTrajectory = join(TRAJECTORIES, "miniswe.local.traj.json");
const dir = mkdtempSync(join(tmpdir(), "patchloop-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof data === "string" ? data : JSON.stringify(data));
  return path;
}

const ask = { messages: [{ role: "user" as const, content: "anything" }] };

describe("replay model", () => {
  it("replays a patchloop trajectory's assistant messages in order, then fails with the count", async () => {
    const path = write("run.traj.json", {
      trajectory_format: "patchloop-1",
      info: { exit_status: "Submitted" },
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "task" },
        {
          role: "assistant",
          content: "thinking",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          ],
          extra: {
            finish_reason: "tool_calls",
            usage: { prompt_tokens: 120, completion_tokens: 30 },
            cost: 0.25,
            raw: { id: "r1" },
            step: 1,
          },
        },
        { role: "tool", tool_call_id: "call_1", content: "a.txt" },
        { role: "assistant", content: "done" },
      ],
    });
    const model = createModel(modelConfig({ model_name: `replay:${path}` }));
    expect(model.name).toBe(`replay:${path}`);
    expect(await model.query(ask)).toEqual({
      ok: true,
      message: {
        role: "assistant",
        content: "thinking",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
        ],
      },
      finishReason: "tool_calls",
      usage: { prompt_tokens: 120, completion_tokens: 30 },
      cost: 0.25,
      raw: { id: "r1" },
      tries: 1,
    });
    expect(await model.query(ask)).toEqual({
      ok: true,
      message: { role: "assistant", content: "done" },
      finishReason: null,
      usage: { prompt_tokens: 0, completion_tokens: 0 },
      cost: 0,
      raw: null,
      tries: 1,
    });
    expect(await model.query(ask)).toEqual({
      ok: false,
      kind: "fatal",
      message: `replay:${path}: the recording has 2 replies and all were used (this was call 3)`,
      tries: 0,
    });
  });

  it("reads mini-swe-agent's {info, messages} with usage and finish_reason in extra.response", async () => {
    const path = write("mini.traj.json", {
      info: { exit_status: "Submitted" },
      trajectory_format: "mini-swe-agent-1.1",
      messages: [
        { role: "user", content: "task" },
        {
          role: "assistant",
          content: "```bash\nls\n```",
          extra: {
            response: {
              choices: [{ finish_reason: "stop" }],
              usage: { prompt_tokens: 7, completion_tokens: 3 },
            },
          },
        },
      ],
    });
    const result = await createModel(modelConfig({ model_name: `replay:${path}` })).query(ask);
    expect(result.ok && [result.message.content, result.finishReason, result.usage]).toEqual([
      "```bash\nls\n```",
      "stop",
      { prompt_tokens: 7, completion_tokens: 3 },
    ]);
  });

  it("replays the shared mini-swe-agent trajectory (a plain list of messages)", async () => {
    const model = createModel(modelConfig({ model_name: `replay:${sharedTrajectory}` }));
    const first = await model.query(ask);
    const second = await model.query(ask);
    expect(first.ok && first.message).toEqual({
      role: "assistant",
      content: "Here be some dummy command:\n\n```mswea_bash_command\necho 'hello world'\n```",
    });
    expect(second.ok && second.message).toEqual({
      role: "assistant",
      content:
        "OK, now let me end this run.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
    });
    const third = await model.query(ask);
    expect(third.ok === false && third.message).toBe(
      `replay:${sharedTrajectory}: the recording has 2 replies and all were used (this was call 3)`,
    );
  });

  it("throws at construction, naming the file and the reason", () => {
    const missing = join(dir, "missing.json");
    const cases: Array<[string, string]> = [
      [missing, `cannot replay ${missing}: ENOENT: no such file or directory, open '${missing}'`],
      [write("bad.json", "{oops"), `cannot replay ${join(dir, "bad.json")}: not valid JSON (`],
      [
        write("other.json", { trajectory: [], history: 3 }),
        `cannot replay ${join(dir, "other.json")}: expected {trajectory_format: "patchloop-1", messages: [...]}, mini-swe-agent's {info, messages: [...]} or a list of messages; got an object with keys trajectory, history`,
      ],
      [
        write("empty.json", { messages: [{ role: "user", content: "x" }] }),
        `cannot replay ${join(dir, "empty.json")}: it contains no assistant messages`,
      ],
      [
        write("norole.json", [{ content: "x" }]),
        `cannot replay ${join(dir, "norole.json")}: message 0 has no role`,
      ],
    ];
    for (const [path, message] of cases) {
      let thrown = "";
      try {
        createModel(modelConfig({ model_name: `replay:${path}` }));
      } catch (err) {
        thrown = (err as Error).message;
      }
      expect(thrown.slice(0, message.length)).toBe(message);
    }
  });
});
