import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackticksProtocol } from "../src/agent/protocols/backticks.js";
import type { ModelConfig } from "../src/config/schema.js";
import { createModel } from "../src/models/factory/create-model.js";
import { runtimeProblem } from "../src/models/gguf/model-file.js";
import { PromptRenderer } from "../src/models/gguf/prompt.js";
import { disposeRuntimes, loadRuntime } from "../src/models/gguf/runtime.js";
import type { ChatMessage, Model } from "../src/models/types.js";
import { startFakeLlmServer } from "../src/testing/fake-llm-server.js";
import { ACTION_LEAN, writeTinyModel } from "../src/testing/gguf-tiny-model.js";

const now = () => Number(process.hrtime.bigint()) / 1e6;
const round = (x: number) => Math.round(x * 100) / 100;
const REPLY = "I will look.\n```bash\nls\n```";
const OBSERVATION = "<returncode>0</returncode>\n<output>\nREADME.md\nsrc\n</output>";
/** Tokens each embedded reply may have: the same for the client and its floor. */
const MAX_TOKENS = 16;

/** The conversation at step `i` (0-based): the system and task, then `i` steps of reply and observation. */
function conversation(i: number): ChatMessage[] {
  const out: ChatMessage[] = [
    { role: "system", content: "You are a software engineer. Reply with one ```bash block." },
    { role: "user", content: "Fix median() in src/stats.js." },
  ];
  for (let k = 0; k < i; k++)
    out.push({ role: "assistant", content: REPLY }, { role: "user", content: OBSERVATION });
  return out;
}

function config(over: Partial<ModelConfig>): ModelConfig {
  return {
    model_name: "",
    base_url: null,
    replica_cooldown: 30,
    api_key_env: null,
    model_kwargs: {},
    vision: false,
    price: null,
    retry: { max_tries: 1, initial_delay: 1, max_delay: 1, max_total: 0 },
    request_timeout: 60,
    max_response_bytes: 64 * 1024 ** 2,
    observation_template: "{{ output }}",
    format_error_template: "{{ error }}",
    action_regex: null,
    cost_tracking: "ignore_errors",
    reasoning_history: "drop",
    family: null,
    api: "chat",
    constrain_actions: false,
    server: null,
    gguf: {
      context_size: 8192,
      threads: 1,
      gpu_layers: 0,
      sequences: 1,
      load_timeout: 600,
      load_memory_gib: null,
    },
    ...over,
  };
}

async function perCall(
  model: Model,
  steps: number,
  constraint?: ReturnType<typeof constraintOf>,
): Promise<number> {
  await model.query({ messages: conversation(0), ...(constraint ? { constraint } : {}) });
  const t = now();
  for (let i = 1; i <= steps; i++) {
    const r = await model.query({ messages: conversation(i), ...(constraint ? { constraint } : {}) });
    if (!r.ok) throw new Error(`bench model call failed: ${r.kind}: ${r.message}`);
  }
  return (now() - t) / steps;
}

const constraintOf = () => createBackticksProtocol("bash", null).constraint;

/** node-llama-cpp alone on the same steps: the prompt's tokens ready, only the new suffix evaluated, the same grammar and reply length. */
async function embeddedFloor(path: string, steps: number): Promise<number> {
  const rt = await loadRuntime({ path, contextSize: 8192, threads: 1, gpuLayers: 0, sequences: 1 });
  const renderer = new PromptRenderer({
    template: rt.chatTemplate,
    bosToken: "",
    eosToken: "",
    kwargs: {},
    keepReasoning: false,
  });
  const prompts = Array.from({ length: steps + 1 }, (_, i) =>
    rt.model.tokenize(renderer.render(conversation(i)), true),
  );
  const constraint = constraintOf();
  if (constraint?.kind !== "fenced") throw new Error("the backticks protocol has no fenced constraint");
  const grammar = await rt.grammar(constraint.gbnf);
  const lease = await rt.pool.acquire({});
  const seq = lease.sequence;
  const step = async (tokens: (typeof prompts)[number]) => {
    const kept = Math.min(seq.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
    if (kept < seq.nextTokenIndex)
      await seq.eraseContextTokenRanges([{ start: kept, end: seq.nextTokenIndex }]);
    let n = 0;
    for await (const _ of seq.evaluate(tokens.slice(kept), {
      temperature: 0,
      grammarEvaluationState: rt.grammarState(grammar),
    }))
      if (++n >= MAX_TOKENS) break;
  };
  try {
    await step(prompts[0]);
    const t = now();
    for (let i = 1; i <= steps; i++) await step(prompts[i]);
    return (now() - t) / steps;
  } finally {
    lease.release();
  }
}

function rawRoundTrip(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/chat/completions`,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve());
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Per-step overhead of the model clients, each beside its floor measured in the same run: the
 * embedded GGUF client (tiny model of src/testing, CPU, one thread, the fenced grammar, 16 tokens a
 * reply) against node-llama-cpp doing the same evaluation with the prompt's tokens ready; the
 * OpenAI HTTP client against a raw HTTP round trip of the same body to the same fake server on
 * 127.0.0.1. Ratios travel between machines; the milliseconds do not.
 */
export async function benchGgufOverhead(steps = 30): Promise<Record<string, unknown>> {
  const server = await startFakeLlmServer({
    record: false,
    defaultBehaviour: {
      type: "reply",
      content: REPLY,
      usage: { prompt_tokens: 1000, completion_tokens: 20 },
    },
  });
  const dir = mkdtempSync(join(tmpdir(), "patchloop-bench-gguf-"));
  try {
    const http = createModel(config({ model_name: "openai/bench", base_url: `${server.url}/v1` }), {
      env: {},
    });
    const httpMs = await perCall(http, steps);
    const bodies = Array.from({ length: steps }, (_, i) =>
      JSON.stringify({ model: "bench", messages: conversation(i + 1) }),
    );
    await rawRoundTrip(server.url, bodies[0]);
    const t = now();
    for (const b of bodies) await rawRoundTrip(server.url, b);
    const httpFloor = (now() - t) / steps;
    const figures: Record<string, unknown> = {
      steps,
      http_client_ms: round(httpMs),
      http_floor_ms: round(httpFloor),
      http_ratio: round(httpMs / httpFloor),
      http_overhead_ms: round(httpMs - httpFloor),
    };
    const missing = runtimeProblem();
    if (missing) return { ...figures, gguf: `not measured: ${missing}` };
    const path = writeTinyModel(dir, { lean: ACTION_LEAN });
    const gguf = createModel(
      config({ model_name: `gguf:${path}`, model_kwargs: { temperature: 0, max_tokens: MAX_TOKENS } }),
    );
    const ggufMs = await perCall(gguf, steps, constraintOf());
    const ggufFloor = await embeddedFloor(path, steps);
    return {
      ...figures,
      gguf_client_ms: round(ggufMs),
      gguf_floor_ms: round(ggufFloor),
      gguf_ratio: round(ggufMs / ggufFloor),
      gguf_overhead_ms: round(ggufMs - ggufFloor),
    };
  } finally {
    await disposeRuntimes();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
