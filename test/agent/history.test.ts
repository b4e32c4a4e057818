import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentResult, runAgent } from "../../src/agent/agent.js";
import { createActionRunner } from "../../src/agent/create-runner.js";
import { textOf } from "../../src/agent/protocols/types.js";
import { loadConfig } from "../../src/config/load.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import {
  type RecordedModelRequest,
  ScriptedModel,
  type ScriptedResponse,
} from "../../src/models/scripted.js";
import type { ChatMessage, RequestRecord } from "../../src/models/types.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached";

/** Step i prints `out-i` padded to 300 characters, so a masked observation is shorter than it was. */
const printing = (i: number) => ({
  content: `thought ${i}`,
  toolCalls: [{ name: "bash", arguments: { command: `printf 'out-${i}%0296d\\n' 0` } }],
});

async function run(
  responses: ScriptedResponse[],
  configArgs: string[],
): Promise<{ result: AgentResult; calls: RecordedModelRequest[] }> {
  const dir = tempDir();
  const repo = join(dir, "repo");
  makeRepo(repo, { "a.txt": "a\n" });
  const { config } = loadConfig({
    configArgs: ["default", "model.model_name=scripted", ...configArgs],
    defaultConfig: "default",
  });
  const model = new ScriptedModel(responses);
  const env = createLocalEnvironment({ cwd: repo, timeout: 30 });
  const result = await runAgent({
    config,
    model,
    env,
    runner: createActionRunner(config),
    task: "do it",
    trajectoryPath: join(dir, "t.traj.json"),
  });
  await env.close();
  model.assertAllUsed();
  return { result, calls: model.calls };
}

const strip = ({ extra: _, ...m }: ChatMessage) => m;
const obsText = (i: number) =>
  `<returncode>0</returncode>\n<output>\nout-${i}${"0".repeat(296)}\n\n</output>`;

/** Each observation of a request, as `whole i` or the placeholder's text. */
function layout(messages: ChatMessage[]): string[] {
  return messages
    .filter((m) => m.role === "tool")
    .map((m) => {
      const t = textOf(m);
      const i = /^<returncode>0<\/returncode>\n<output>\nout-(\d+)0{296}\n\n<\/output>$/.exec(t);
      return i ? `whole ${i[1]}` : t;
    });
}

describe("agent.history: what is sent at each step", () => {
  it("full: every request is the recorded history without extra, each the previous one plus what was added", async () => {
    const steps = Array.from({ length: 6 }, (_, i) => printing(i + 1));
    const { result, calls } = await run(
      [...steps, { toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }] }],
      ["agent.history.policy=full"],
    );
    const recorded = result.trajectory.messages;
    expect(calls).toHaveLength(7);
    for (let s = 0; s < calls.length; s++) {
      const sent = calls[s].messages;
      // byte-identical to the recorded messages (what was sent before agent.history existed)
      expect(JSON.stringify(sent)).toBe(JSON.stringify(recorded.slice(0, sent.length).map(strip)));
      if (s > 0) expect(sent.slice(0, calls[s - 1].messages.length)).toEqual(calls[s - 1].messages);
    }
    expect(layout(calls[6].messages)).toEqual([1, 2, 3, 4, 5, 6].map((i) => `whole ${i}`));
    const requests = recorded.filter((m) => m.role === "assistant").map((m) => m.extra?.request);
    expect(requests[0]).toEqual({
      policy: "full",
      messages: 2,
      shared_messages: 0,
      shared_previous: false,
      shared_tokens: 0,
      masked: 0,
      block_step: false,
    });
    expect(requests.slice(1).every((r) => (r as { shared_previous: boolean }).shared_previous)).toBe(true);
  });

  it("mask_observations: the oldest are masked at the block steps only, keep_last stay whole, the prompts untouched", async () => {
    const steps = Array.from({ length: 9 }, (_, i) => printing(i + 1));
    const { result, calls } = await run(
      [...steps, { toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }] }],
      [
        "agent.history.policy=mask_observations",
        "agent.history.keep_last=2",
        "agent.history.every=3",
        "agent.history.placeholder='[step {{ step }}: {{ chars }} chars, {{ lines }} lines elided, rc {{ returncode }}]'",
      ],
    );
    const masked = (i: number) => `[step ${i}: ${obsText(i).length} chars, 5 lines elided, rc 0]`;
    const whole = (i: number) => `whole ${i}`;
    expect(calls.map((c) => layout(c.messages))).toEqual([
      [],
      [whole(1)],
      [whole(1), whole(2)], // step 3: a block step, but only two observations: nothing to mask
      [whole(1), whole(2), whole(3)],
      [whole(1), whole(2), whole(3), whole(4)],
      [masked(1), masked(2), masked(3), whole(4), whole(5)], // step 6: block step
      [masked(1), masked(2), masked(3), whole(4), whole(5), whole(6)],
      [masked(1), masked(2), masked(3), whole(4), whole(5), whole(6), whole(7)],
      [masked(1), masked(2), masked(3), masked(4), masked(5), masked(6), whole(7), whole(8)], // step 9
      [masked(1), masked(2), masked(3), masked(4), masked(5), masked(6), whole(7), whole(8), whole(9)],
    ]);
    const recorded = result.trajectory.messages;
    for (let s = 0; s < calls.length; s++) {
      const sent = calls[s].messages;
      expect(sent.slice(0, 2)).toEqual(recorded.slice(0, 2).map(strip)); // system and task untouched
      const prefix = calls[s - 1]?.messages ?? [];
      const appendOnly = JSON.stringify(sent.slice(0, prefix.length)) === JSON.stringify(prefix);
      expect([s + 1, appendOnly]).toEqual([s + 1, s + 1 !== 6 && s + 1 !== 9]);
      // a masked tool message keeps its call id and name; the assistant messages are never changed
      for (let i = 0; i < sent.length; i++) {
        expect(sent[i].role).toBe(recorded[i].role);
        if (sent[i].role !== "tool") expect(sent[i]).toEqual(strip(recorded[i]));
        else
          expect([sent[i].tool_call_id, sent[i].name]).toEqual([recorded[i].tool_call_id, recorded[i].name]);
      }
    }
    // the trajectory keeps every observation whole
    expect(layout(recorded).slice(0, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map(whole));
    const requests = recorded
      .filter((m) => m.role === "assistant")
      .map((m) => m.extra?.request as RequestRecord);
    expect(requests.map((r) => [r.masked, r.block_step, r.shared_previous])).toEqual([
      [0, false, false],
      [0, false, true],
      [0, false, true],
      [0, false, true],
      [0, false, true],
      [3, true, false],
      [3, false, true],
      [3, false, true],
      [6, true, false],
      [6, false, true],
    ]);
    // at step 6 the messages before the first masked observation are shared: system, task, reply 1
    expect(requests[5].shared_messages).toBe(3);
  });

  it("the default placeholder says what was elided and how to see it again", async () => {
    const steps = Array.from({ length: 3 }, (_, i) => printing(i + 1));
    const { calls } = await run(
      [...steps, { toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }] }],
      ["agent.history.policy=mask_observations", "agent.history.keep_last=1", "agent.history.every=3"],
    );
    expect(layout(calls[2].messages)).toEqual([
      `[patchloop: the output of step 1 (${obsText(1).length} characters, 5 lines) was removed from the history to save context; repeat that action if you need it again.]`,
      "whole 2",
    ]);
  });

  it("threshold: masking when the last prompt reached threshold x context_limit, then append-only again", async () => {
    const tokens = [100, 200, 300, 850, 300, 400, 500];
    const steps = tokens.map((t, i) => ({
      ...printing(i + 1),
      usage: { prompt_tokens: t, cached_tokens: t - 50 },
    }));
    const { result, calls } = await run(
      [...steps, { toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }] }],
      [
        "agent.history.policy=mask_observations",
        "agent.history.keep_last=2",
        "agent.history.every=0",
        "agent.history.threshold=0.8",
        "agent.context_limit=1000",
        "agent.history.placeholder='[gone {{ step }}]'",
      ],
    );
    // the 4th call reported 850 >= 800: the 5th request masks all but the last two observations
    expect(calls.map((c) => layout(c.messages).filter((t) => t.startsWith("[gone")).length)).toEqual([
      0, 0, 0, 0, 2, 2, 2, 2,
    ]);
    const replies = result.trajectory.messages.filter((m) => m.role === "assistant");
    expect(replies.map((m) => m.extra?.usage?.cached_tokens)).toEqual([
      50,
      150,
      250,
      800,
      250,
      350,
      450,
      undefined,
    ]);
    const req = replies.map((m) => m.extra?.request as RequestRecord);
    // append-only requests: the shared prefix is the whole previous prompt, as the server counted it
    expect(req.map((r) => r.shared_tokens)).toEqual([0, 100, 200, 300, req[4].shared_tokens, 300, 400, 0]);
    expect(req[4].block_step).toBe(true);
    // the block step shares system, task, reply 1 (its observation is masked): a share of the characters
    expect(req[4].shared_messages).toBe(3);
    expect(req[4].shared_tokens).toBeGreaterThan(0);
    expect(req[4].shared_tokens).toBeLessThan(300);
  });

  it("a config that would never mask, or a broken placeholder, is refused before the run", () => {
    expect(() =>
      loadConfig({
        configArgs: ["default", "agent.history.policy=mask_observations", "agent.history.every=0"],
        defaultConfig: "default",
      }),
    ).toThrow(/agent.history.policy is mask_observations but nothing would ever mask/);
    expect(() =>
      loadConfig({ configArgs: ["default", "agent.history.keep_last=0"], defaultConfig: "default" }),
    ).toThrow(/agent.history.keep_last/);
    expect(() =>
      loadConfig({ configArgs: ["default", "agent.history.policy=last_five"], defaultConfig: "default" }),
    ).toThrow(/agent.history.policy/);
  });
});
