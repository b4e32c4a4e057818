import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelConfig } from "../../src/config/schema.js";
import { createModel } from "../../src/models/factory/create-model.js";
import type { ReasoningFamily } from "../../src/models/reasoning-chain.js";
import type { ChatMessage, ToolSpec } from "../../src/models/types.js";
import type { FakeFlavor, FakeLlmServer, FakeReplySpec } from "../../src/testing/fake-llm-server.js";
import { DEEPSEEK_MISSING_REASONING, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { CHAT_TEMPLATES } from "../support/data.js";
import { modelConfig, recordingSleep } from "./helpers.js";

/**
 * What patchloop sends at each step, through the real client over HTTP, rendered by each family's
 * published chat template (test/fixtures/chat-templates/README.md): the reasoning patchloop sends
 * must be exactly the reasoning the template keeps when it is given all of it, and the prompt the
 * template renders from patchloop's request must be the one it renders from the full history.
 */

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const bash: ToolSpec = {
  name: "bash",
  description: "Run a command.",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};

const call = (command: string): FakeReplySpec => ({
  content: null,
  toolCalls: [{ name: "bash", arguments: { command } }],
});

/**
 * One task in the tool_calls protocol: two calls, a user message inside the chain (a limit notice:
 * no final answer before it), a call, a reply without a call (answered by a format error, a user
 * message), a call. Reply k carries reasoning `R<k>`.
 */
const REPLIES: Array<FakeReplySpec & { after: "tool" | "tool+user" | "user" }> = [
  { ...call("ls"), reasoning: "R1 look around", after: "tool" },
  { ...call("cat a.py"), reasoning: "R2 read the file", after: "tool+user" },
  { ...call("grep -n x a.py"), reasoning: "R3 find the line", after: "tool" },
  { content: "I will now edit the file.", reasoning: "R4 plan the edit", after: "user" },
  { ...call("sed -i s/x/y/ a.py"), reasoning: "R5 edit", after: "tool" },
];
const REASONING = REPLIES.map((r) => r.reasoning as string);

/** The messages of every request one run sends (6: before each reply, and one after the last). */
async function requestsSent(
  family: ReasoningFamily,
  flavor: FakeFlavor,
  history: ModelConfig["reasoning_history"],
) {
  const server = await startFakeLlmServer({ flavor });
  servers.push(server);
  const model = createModel(
    modelConfig({ base_url: `${server.url}/v1`, reasoning_history: history, family }),
    { env: {}, sleep: recordingSleep().sleep, random: () => 1 },
  );
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a careful engineer." },
    { role: "user", content: "Fix the bug in a.py." },
  ];
  for (const [k, reply] of REPLIES.entries()) {
    server.enqueue({ type: "reply", ...reply });
    const result = await model.query({ messages: [...messages], tools: [bash] });
    if (!result.ok) throw new Error(result.message);
    messages.push(result.message);
    const id = result.message.tool_calls?.[0]?.id;
    if (reply.after !== "user") messages.push({ role: "tool", tool_call_id: id, content: `output ${k + 1}` });
    if (reply.after === "tool+user")
      messages.push({ role: "user", content: "You have 10 steps left; submit before then." });
    if (reply.after === "user")
      messages.push({ role: "user", content: "Your reply could not be run: it had no tool call." });
  }
  server.enqueue({ type: "reply", content: "done" });
  const last = await model.query({ messages: [...messages], tools: [bash] });
  if (!last.ok) throw new Error(last.message);
  return server.requests
    .filter((r) => r.method === "POST")
    .map((r) => (r.body as { messages: Array<Record<string, unknown>> }).messages);
}

/**
 * A wire message as the server hands it to the chat template: vLLM reads `reasoning` (or
 * `reasoning_content`) into `reasoning_content` (vllm/entrypoints/chat_utils.py,
 * `_parse_assistant_message_content`); llama.cpp passes `reasoning_content` and, for gpt-oss,
 * copies it to `thinking` on messages with tool calls (common/chat.cpp, gpt-oss init); both parse
 * tool-call arguments into objects and give the template an empty string for a null content.
 */
function serverView(wire: Record<string, unknown>, templateField: "reasoning_content" | "thinking") {
  const m: Record<string, unknown> = { ...wire, content: wire.content ?? "" };
  const reasoning = m.reasoning ?? m.reasoning_content;
  delete m.reasoning;
  delete m.reasoning_content;
  if (typeof reasoning === "string") m[templateField] = reasoning;
  if (Array.isArray(m.tool_calls))
    m.tool_calls = (m.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>).map(
      (c) => ({ ...c, function: { ...c.function, arguments: JSON.parse(c.function.arguments) } }),
    );
  return m;
}

interface FamilyCase {
  family: ReasoningFamily;
  file: string;
  /** The server whose reply fields the run uses (where the reasoning comes and goes back). */
  flavor: FakeFlavor;
  templateField: "reasoning_content" | "thinking";
  /** Per request (0-based), which replies' reasoning the chain holds. */
  expected: number[][];
}

// Requests: 0 before R1; 1 after R1's result; 2 after R2's and a user notice; 3 after R3's; 4 after
// R4 (no call) and a format error; 5 after R5's result.
const SINCE_USER = [[], [1], [], [3], [], [5]];
const SINCE_FINAL = [[], [1], [1, 2], [1, 2, 3], [], [5]];

const CASES: FamilyCase[] = [
  {
    family: "qwen3",
    file: "Qwen-Qwen3-0.6B.jinja",
    flavor: "vllm",
    templateField: "reasoning_content",
    expected: SINCE_USER,
  },
  {
    family: "gemma4",
    file: "google-gemma-4-31B-it-interleaved.jinja",
    flavor: "vllm",
    templateField: "reasoning_content",
    expected: SINCE_USER,
  },
  {
    family: "glm",
    file: "GLM-4.6.jinja",
    flavor: "sglang",
    templateField: "reasoning_content",
    expected: SINCE_USER,
  },
  {
    family: "minimax_m2",
    file: "unsloth-MiniMax-M2.jinja",
    flavor: "vllm",
    templateField: "reasoning_content",
    expected: SINCE_USER,
  },
  {
    // DeepSeek V4's own Jinja template is not published (its model card ships a Python encoder); this
    // is llama.cpp's template of DeepSeek V3.2, whose reasoning convention V4 keeps (README.md there).
    family: "deepseek_v4",
    file: "DeepSeek-V3.2.jinja",
    flavor: "deepseek",
    templateField: "reasoning_content",
    expected: SINCE_USER,
  },
  {
    family: "gpt_oss",
    file: "openai-gpt-oss-120b.jinja",
    flavor: "llamacpp",
    templateField: "thinking",
    expected: SINCE_FINAL,
  },
  {
    family: "kimi_k2",
    file: "moonshotai-Kimi-K2-Thinking.jinja",
    flavor: "llamacpp",
    templateField: "reasoning_content",
    expected: SINCE_FINAL,
  },
];

/** The reasoning texts a list of strings holds, by reply number (1-based). */
const holding = (text: string): number[] => REASONING.flatMap((r, i) => (text.includes(r) ? [i + 1] : []));

describe("reasoning_history: chain sends exactly what each family's chat template keeps", () => {
  for (const c of CASES) {
    it(`${c.family} (${c.file}, ${c.flavor} server)`, async () => {
      const template = new Template(readFileSync(join(CHAT_TEMPLATES, c.file), "utf8"));
      const render = (messages: Array<Record<string, unknown>>) =>
        template.render({
          messages: messages.map((m) => serverView(m, c.templateField)),
          tools: [{ type: "function", function: bash }],
          add_generation_prompt: true,
          bos_token: "<bos>",
        });
      const chain = await requestsSent(c.family, c.flavor, "chain");
      const all = await requestsSent(c.family, c.flavor, "keep");
      expect(chain).toHaveLength(6);
      chain.forEach((sent, k) => {
        const kept = holding(render(all[k]));
        // what patchloop sends, what the template keeps of everything, and the written rule agree
        expect({ k, sent: holding(JSON.stringify(sent)) }).toEqual({ k, sent: kept });
        expect({ k, kept }).toEqual({ k, kept: c.expected[k] });
        expect(render(sent)).toBe(render(all[k]));
      });
    });
  }

  it("DeepSeek's API answers 400 when the chain's reasoning is not sent back, and accepts chain", async () => {
    const failure = await requestsSent("deepseek_v4", "deepseek", "drop").then(
      () => "accepted",
      (err: Error) => err.message,
    );
    expect(failure).toContain(DEEPSEEK_MISSING_REASONING);
    expect(failure).toContain("400");
    expect(await requestsSent("deepseek_v4", "deepseek", "chain")).toHaveLength(6);
  });

  it("drop would lose what the templates keep (the comparison above can fail)", async () => {
    const c = CASES[0];
    const template = new Template(readFileSync(join(CHAT_TEMPLATES, c.file), "utf8"));
    const render = (messages: Array<Record<string, unknown>>) =>
      template.render({
        messages: messages.map((m) => serverView(m, c.templateField)),
        add_generation_prompt: true,
      });
    const drop = await requestsSent(c.family, c.flavor, "drop");
    const all = await requestsSent(c.family, c.flavor, "keep");
    expect(holding(render(all[1]))).toEqual([1]);
    expect(holding(render(drop[1]))).toEqual([]);
    expect(render(drop[1])).not.toBe(render(all[1]));
  });
});
