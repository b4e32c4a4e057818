import { createActionRunner } from "../agent/create-runner.js";
import { createToolCallsProtocol } from "../agent/protocols/tool-calls.js";
import type { FamilyChoice } from "../config/auto-family.js";
import { parseModelName } from "../config/model-name.js";
import { maskUrlCredentials } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import { resolveEndpoint } from "../models/endpoint.js";
import { createModel } from "../models/factory/create-model.js";
import { asRecord } from "../models/json-shape.js";
import { httpGet, type Listing, listModels, maxTokensOf } from "../models/model-listing.js";
import { requestHeaders } from "../models/request-headers.js";
import type { ChatMessage, Model, ModelResult, ToolSpec } from "../models/types.js";

/**
 * The checks of `patchloop doctor` (docs/models.md, "Checking a server before a run"): what a run
 * needs of an OpenAI-compatible server, asked in a few small requests. Each check is one line;
 * `fail` lines are what would stop or ruin the run (the verdict), `warn` lines what would weaken it.
 */
export type Mark = "ok" | "warn" | "fail" | "info";

export interface CheckLine {
  mark: Mark;
  name: string;
  text: string;
}

export interface DoctorReport {
  header: string;
  lines: CheckLine[];
  recommendations: string[];
  /** Why the run would not work (the `fail` lines' reasons); empty: it would. */
  failures: string[];
}

/** Tool calls asked for (the same prompt each time, so the later ones also test the prefix cache). */
export const TOOL_PROBES = 3;

/** Per family: vLLM's flags that return reasoning apart and parse tool calls (docs/models.md, "Serving them with vLLM"). */
const VLLM_FLAGS: Record<string, { reasoning: string; tools: string }> = {
  qwen3: {
    reasoning: "--reasoning-parser qwen3",
    tools: "--enable-auto-tool-choice --tool-call-parser hermes (qwen3_coder for Qwen3-Coder, 3.5, 3.6)",
  },
  gemma4: {
    reasoning: "--reasoning-parser gemma4",
    tools: "--enable-auto-tool-choice --tool-call-parser gemma4",
  },
  gpt_oss: { reasoning: "(none needed)", tools: "--enable-auto-tool-choice --tool-call-parser openai" },
  glm: { reasoning: "--reasoning-parser glm45", tools: "--enable-auto-tool-choice --tool-call-parser glm45" },
  kimi_k2: {
    reasoning: "--reasoning-parser kimi_k2",
    tools: "--enable-auto-tool-choice --tool-call-parser kimi_k2",
  },
  minimax_m2: {
    reasoning: "--reasoning-parser minimax_m2",
    tools: "--enable-auto-tool-choice --tool-call-parser minimax_m2",
  },
  deepseek_v4: {
    reasoning: "the model card's reasoning parser",
    tools: "--enable-auto-tool-choice with the model card's tool-call parser",
  },
};

/** A system message long enough (about 1,500 tokens) that a prefix cache has whole blocks of it to keep. */
const SYSTEM = [
  "You are being checked by patchloop doctor before a long run: answer each request exactly as asked.",
  ...Array.from(
    { length: 60 },
    (_, i) =>
      `Line ${i + 1}: this text repeats across the check's requests so that a server with a prefix cache serves it from there.`,
  ),
].join("\n");
/** A tool call written in a reply's text (the server's tool-call parser missing or failing). */
const CALL_AS_TEXT = /<tool_call>|<function=|"name"\s*:\s*"[^"]+"\s*,\s*"(?:arguments|parameters)"\s*:/;
const ASK = "Call the bash tool once with the command `echo ready`. Do not answer in text.";

/** Where a reply's reasoning came: the server's own field, `<think>` in the content, or nowhere. */
function reasoningPlace(
  result: Extract<ModelResult, { ok: true }>,
): "reasoning" | "reasoning_content" | "reasoning items" | "think" | null {
  if (Array.isArray(asRecord(result.raw)?.output)) return result.message.reasoning ? "reasoning items" : null;
  const choices = asRecord(result.raw)?.choices;
  const message = asRecord(Array.isArray(choices) ? choices[0] : null)?.message;
  const wire = asRecord(message);
  for (const field of ["reasoning", "reasoning_content"] as const)
    if (typeof wire?.[field] === "string" && (wire[field] as string).trim() !== "") return field;
  return result.message.reasoning ? "think" : null;
}

/** The model client as the run makes it, but answering in seconds: one try, a short timeout. */
function probeModel(config: Config, timeoutS: number): Model {
  return createModel(
    {
      ...config.model,
      retry: { ...config.model.retry, max_tries: 1, max_total: timeoutS },
      request_timeout: Math.min(config.model.request_timeout, timeoutS),
    },
    { warn: () => {} },
  );
}

export interface DoctorOptions {
  config: Config;
  family: FamilyChoice | null;
  env?: NodeJS.ProcessEnv;
  /** Seconds one request may take (default 60: a thinking model's first reply can be slow). */
  timeoutS?: number;
}

/** What the checks found so far: the lines, the recommendations, the failures (each failure is a line too). */
class Findings {
  readonly lines: CheckLine[] = [];
  readonly recommendations: string[] = [];
  readonly failures: string[] = [];
  add(mark: Mark, name: string, text: string): void {
    this.lines.push({ mark, name, text });
  }
  fail(name: string, text: string, reason: string): void {
    this.add("fail", name, text);
    this.failures.push(reason);
  }
  recommend(text: string): void {
    this.recommendations.push(text);
  }
  report(): Omit<DoctorReport, "header"> {
    return { lines: this.lines, recommendations: this.recommendations, failures: this.failures };
  }
}

/** The server under check, as each step needs it (what is shown has no user:password). */
interface Server {
  base: string;
  root: string;
  shownBase: string;
  shownRoot: string;
  headers: Record<string, string>;
  model: string;
  family: string | null;
  protocol: Config["agent"]["protocol"];
  timeoutS: number;
}

/**
 * Runs every check against the configured server, in steps (each a function below, numbered as the
 * report lists them); never throws for what the server does.
 */
export async function runDoctor(o: DoctorOptions): Promise<DoctorReport> {
  const { config } = o;
  const timeoutS = o.timeoutS ?? 60;
  const parsed = parseModelName(config.model.model_name);
  if (parsed.provider !== "openai")
    throw new Error(
      `patchloop doctor checks OpenAI-compatible servers (-m openai/<name> --base-url URL); ${config.model.model_name} is not one`,
    );
  const endpoint = resolveEndpoint("openai", config.model, o.env ?? process.env);
  const base = endpoint.baseURL;
  const root = base.replace(/\/v1\/?$/, "");
  // what the report shows: a user:password in the URL is never printed
  const shownBase = maskUrlCredentials(base);
  const shownRoot = maskUrlCredentials(root);
  const headers = requestHeaders("openai", endpoint.apiKey, o.env ?? process.env);
  const model = parsed.model;
  const family = config.model.family === null || config.model.family === "none" ? null : config.model.family;
  const protocol = config.agent.protocol;
  const f = new Findings();
  const s: Server = { base, root, shownBase, shownRoot, headers, model, family, protocol, timeoutS };
  const header = `patchloop doctor: ${model} at ${shownBase} (protocol ${protocol}, family ${family ?? "none"}, reasoning_history ${config.model.reasoning_history})`;
  const report = () => ({ header, ...f.report() });
  const listing = await checkListing(f, s);
  if (listing.status === null) return report();
  checkContext(f, config, listing);
  const probes = await probeToolCalls(f, s, config);
  if (!probes) return report();
  await checkRoundTrip(f, s, config, probes);
  checkPrefixCache(f, probes.replies, listing);
  await checkMetrics(f, s);
  if (o.family) f.recommend(`family: ${o.family.line}`);
  else if (!family)
    f.recommend(
      "family: none set and none named by the model's name: if it is Qwen3, Gemma 4, gpt-oss, GLM, Kimi K2, MiniMax M2 or DeepSeek V4, add its preset (-c qwen3, -c gemma4, ...; docs/models.md)",
    );
  return report();
}

/** 1. It answers (GET /models), and serves the model. */
async function checkListing(f: Findings, s: Server): Promise<Listing> {
  const { base, shownBase, model, headers, timeoutS } = s;
  const listing = await listModels(base, model, headers, Math.min(timeoutS, 10) * 1000);
  if (listing.status === null) {
    f.fail(
      "answers",
      `no answer from GET ${shownBase}/models (${listing.problem})`,
      `the server at ${shownBase} does not answer (${listing.problem}): start it, or check --base-url`,
    );
    return listing;
  }
  if (listing.status === 404) {
    f.fail(
      "answers",
      `GET ${shownBase}/models: HTTP 404 (no model list)`,
      `GET ${shownBase}/models answers 404: \`patchloop swebench\` checks it before the first instance and would stop; an OpenAI-compatible server's base URL usually ends in /v1`,
    );
  } else if (listing.status < 200 || listing.status > 299 || listing.problem) {
    f.fail(
      "answers",
      `GET ${shownBase}/models: HTTP ${listing.status}${listing.problem ? `, ${listing.problem}` : ""}`,
      `GET ${shownBase}/models answers HTTP ${listing.status}: check --base-url and the API key`,
    );
  } else {
    f.add(
      "ok",
      "answers",
      `GET /models in ${listing.ms} ms${listing.owner ? ` (owned_by ${listing.owner})` : ""}`,
    );
    if (listing.ids.includes(model)) f.add("ok", "serves the model", `"${model}" is listed`);
    else
      f.fail(
        "serves the model",
        `"${model}" is not listed; the server lists: ${listing.ids.join(", ") || "nothing"}`,
        `the server does not serve "${model}" (it lists ${listing.ids.join(", ") || "nothing"}): pass -m openai/<a listed name>`,
      );
  }

  return listing;
}

/** 2. The context length the server reports, against max_tokens. */
function checkContext(f: Findings, config: Config, listing: Listing): void {
  const maxTokens = maxTokensOf(config.model.model_kwargs as Record<string, unknown>);
  if (listing.contextLength === null)
    f.add(
      "info",
      "context",
      `not reported${listing.status === 200 ? " in GET /models" : ""}; max_tokens ${maxTokens ?? "unset"}`,
    );
  else if (maxTokens !== null && maxTokens >= listing.contextLength)
    f.fail(
      "context",
      `${listing.contextLength} tokens (${listing.contextSource}); max_tokens ${maxTokens} leaves no room for the prompt`,
      `max_tokens ${maxTokens} is not below the context length ${listing.contextLength}: every request would be refused; lower model.model_kwargs.max_tokens`,
    );
  else if (maxTokens !== null && maxTokens > listing.contextLength / 2) {
    f.add(
      "warn",
      "context",
      `${listing.contextLength} tokens (${listing.contextSource}); max_tokens ${maxTokens} leaves ${listing.contextLength - maxTokens} for the prompt`,
    );
    f.recommend(
      `max_tokens ${maxTokens} is more than half the context (${listing.contextLength}): a long trajectory soon leaves no room; use at most ${Math.floor(listing.contextLength / 4)} (-c model.model_kwargs.max_tokens=${Math.floor(listing.contextLength / 4)}) or serve a longer context (vLLM --max-model-len)`,
    );
  } else
    f.add(
      "ok",
      "context",
      `${listing.contextLength} tokens (${listing.contextSource}); max_tokens ${maxTokens ?? "unset"}${maxTokens ? `, ${listing.contextLength - maxTokens} left for the prompt` : ""}`,
    );
}

/** What the probe requests gave: the replies and how each parsed, and what later steps send again. */
interface Probes {
  client: Model;
  tools: ToolSpec[];
  ask: ChatMessage[];
  replies: Array<Extract<ModelResult, { ok: true }>>;
  kinds: Array<"ok" | "empty" | "malformed">;
}

/**
 * 3. Tool calls and where the reasoning comes back: TOOL_PROBES identical requests (the prefix
 * cache is judged on their repeats, step 5). Null when every one was refused (a failure is noted).
 */
async function probeToolCalls(f: Findings, s: Server, config: Config): Promise<Probes | null> {
  const { timeoutS, family, protocol } = s;
  const specs: ToolSpec[] = createActionRunner(config).specs.filter((s) => s.name === "bash");
  const tools =
    specs.length > 0
      ? specs
      : createActionRunner({ ...config, agent: { ...config.agent, tools: ["bash"] } }).specs;
  const parser = createToolCallsProtocol(tools);
  const client = probeModel(config, timeoutS);
  const ask: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: ASK },
  ];
  const replies: Array<Extract<ModelResult, { ok: true }>> = [];
  let refused: string | null = null;
  for (let i = 0; i < TOOL_PROBES && refused === null; i++) {
    const r = await client.query({ messages: ask, tools });
    if (r.ok) replies.push(r);
    else refused = r.message;
  }
  if (refused !== null && replies.length === 0) {
    f.fail(
      "tool calls",
      `the request with tools was refused: ${refused}`,
      `a request with tools fails: ${refused}`,
    );
    return null;
  }
  const kinds = replies.map((r): Probes["kinds"][number] => {
    const p = parser.parse(r.message);
    if (p.ok) return "ok";
    return (r.message.tool_calls?.length ?? 0) === 0 ? "empty" : "malformed";
  });
  const good = kinds.filter((k) => k === "ok").length;
  const empty = kinds.filter((k) => k === "empty").length;
  const malformed = kinds.filter((k) => k === "malformed").length;
  const asText = replies.filter(
    (r, i) =>
      kinds[i] === "empty" &&
      CALL_AS_TEXT.test(typeof r.message.content === "string" ? r.message.content : ""),
  ).length;
  const toolText = `${good} of ${replies.length} came back as calls (${empty} empty${asText > 0 ? `, ${asText} of them a call written in the text: the server parsed no tool call` : ""}, ${malformed} malformed)`;
  const flags = family ? VLLM_FLAGS[family] : undefined;
  if (good === replies.length) f.add("ok", "tool calls", toolText);
  else if (protocol === "tool_calls") {
    f.fail(
      "tool calls",
      toolText,
      `tool calls came back empty or malformed in ${replies.length - good} of ${replies.length} requests: with agent.protocol tool_calls the run would end in format errors`,
    );
    f.recommend(
      `protocol: tool calls are unreliable on this server: use backticks (-c swebench_backticks, or -c agent.protocol=backticks), which needs no tool-call parser; or serve with ${flags?.tools ?? "--enable-auto-tool-choice and the model's --tool-call-parser"}`,
    );
  } else f.add("info", "tool calls", `${toolText} (the run uses backticks and needs none)`);

  const places = replies.map(reasoningPlace);
  const apart = places.filter((p) => p !== null && p !== "think");
  const inline = places.filter((p) => p === "think").length;
  if (apart.length > 0)
    f.add("ok", "reasoning", `apart, in \`${apart[0]}\` (${apart.length} of ${replies.length} replies)`);
  else if (inline > 0) {
    f.add(
      "warn",
      "reasoning",
      `inside the content as <think>...</think> (${inline} of ${replies.length} replies)`,
    );
    if (!(family === "gemma4" && protocol === "backticks"))
      f.recommend(
        `reasoning: serve with a reasoning parser so the thinking comes apart (${flags?.reasoning ?? "vLLM --reasoning-parser <the model's>"}); patchloop splits <think> off the content meanwhile`,
      );
  } else f.add("info", "reasoning", `none came back (${replies.length} replies)`);
  if (family === "gemma4" && protocol === "backticks" && apart.length > 0)
    f.recommend(
      "Gemma 4 with backticks: serve without --reasoning-parser (the 26B write-up's lesson: the parser made its patches worse)",
    );
  return { client, tools, ask, replies, kinds };
}

/** 4. The reasoning round trip: the reply with its tool call sent back as the run sends it. */
async function checkRoundTrip(f: Findings, s: Server, config: Config, p: Probes): Promise<void> {
  const { family } = s;
  const { client, tools, ask, replies, kinds } = p;
  const first = replies.find((_r, i) => kinds[i] === "ok");
  if (!first) f.add("info", "reasoning round trip", "not tried: no tool call came back");
  else {
    const id = first.message.tool_calls?.[0]?.id ?? "call_0";
    const next = await client.query({
      messages: [...ask, first.message, { role: "tool", tool_call_id: id, content: "ready" }],
      tools,
    });
    const what = `reasoning_history ${config.model.reasoning_history}${family ? `, family ${family}` : ""}`;
    if (next.ok)
      f.add(
        "ok",
        "reasoning round trip",
        `accepted (${what}; ${
          !first.message.reasoning
            ? "the reply had no reasoning"
            : config.model.reasoning_history === "drop"
              ? "its reasoning was not sent back"
              : "its reasoning was sent back as the family's template keeps it"
        })`,
      );
    else {
      f.fail(
        "reasoning round trip",
        `refused (${what}): ${next.message}`,
        `the server refuses the request that sends a tool call back (${what}): ${next.message}; the run would stop at step 2`,
      );
      f.recommend(
        config.model.reasoning_history === "drop"
          ? "reasoning round trip: the server wants the reasoning back (DeepSeek V4 answers 400 without it): set the family (-c deepseek_v4, or -c model.reasoning_history=chain -c model.family=<family>)"
          : "reasoning round trip: the server refuses the reasoning sent back: -c model.reasoning_history=drop, or a server that takes reasoning_content",
      );
    }
  }
}

/** 5. The prefix cache: the repeats of the same prompt. */
function checkPrefixCache(f: Findings, replies: Probes["replies"], listing: Listing): void {
  const repeats = replies.slice(1);
  const cached = repeats.map((r) => r.usage.cached_tokens);
  const prompt = repeats[0]?.usage.prompt_tokens ?? 0;
  if (repeats.length === 0) f.add("info", "prefix cache", "not tried");
  else if (cached.some((c) => typeof c === "number" && c > 0))
    f.add(
      "ok",
      "prefix cache",
      `${Math.max(...cached.map((c) => c ?? 0))} of ${prompt} prompt tokens served from cache on the repeat`,
    );
  else if (cached.every((c) => c === undefined)) {
    f.add("info", "prefix cache", "usage reports no cached_tokens; cannot tell");
    if (listing.owner === "vllm")
      f.recommend(
        "prefix cache: vLLM reports cached_tokens with --enable-prompt-tokens-details (keep --enable-prefix-caching on)",
      );
  } else {
    f.add("warn", "prefix cache", `0 of ${prompt} prompt tokens served from cache on the repeat`);
    f.recommend(
      "prefix cache: the repeated prefix was not served from cache, so every step pays for the whole history: enable it (vLLM --enable-prefix-caching, SGLang's radix cache, llama.cpp --cache-reuse)",
    );
  }
}

/** 6. The server's metrics (GET <root>/metrics). */
async function checkMetrics(f: Findings, s: Server): Promise<void> {
  const { root, shownRoot, headers } = s;
  const metrics = await httpGet(`${root}/metrics`, headers, 5000);
  if ("error" in metrics || metrics.status !== 200)
    f.add(
      "info",
      "metrics",
      `GET ${shownRoot}/metrics: ${"error" in metrics ? metrics.error : `HTTP ${metrics.status}`}`,
    );
  else {
    const series = new Set(
      metrics.text
        .split("\n")
        .filter((l) => l !== "" && !l.startsWith("#"))
        .map((l) => l.split(/[{ ]/)[0]),
    );
    const server = [...series].find((s) => s.includes(":"))?.split(":")[0];
    f.add("ok", "metrics", `GET ${shownRoot}/metrics: ${series.size} series${server ? ` (${server})` : ""}`);
  }
}

const MARKS: Record<Mark, string> = { ok: "ok  ", warn: "WARN", fail: "FAIL", info: "--  " };

/** The report as the command prints it. */
export function formatReport(r: DoctorReport): string {
  const out = [r.header, ...r.lines.map((l) => `${MARKS[l.mark]}  ${l.name}: ${l.text}`)];
  if (r.recommendations.length > 0) out.push("recommendations:", ...r.recommendations.map((t) => `  - ${t}`));
  out.push(
    r.failures.length === 0
      ? "verdict: the run would work (exit 0)"
      : `verdict: the run would not work (exit 1): ${r.failures.join("; ")}`,
  );
  return `${out.join("\n")}\n`;
}
