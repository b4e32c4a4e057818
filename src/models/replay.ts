import { readFileSync } from "node:fs";
import { asRecord, count } from "./json-shape.js";
import type { ChatMessage, Model, ModelResult, ToolCall, Usage } from "./types.js";

/** One recorded assistant reply, ready to be returned again. */
export interface RecordedReply {
  message: ChatMessage;
  finishReason: string | null;
  usage: Usage;
  cost: number;
  raw: unknown;
}

function fail(path: string, reason: string): never {
  throw new Error(`cannot replay ${path}: ${reason}`);
}

/** The message list of a trajectory: patchloop's and mini-swe-agent's objects, or a plain list. */
function messagesOf(data: unknown, path: string): unknown[] {
  if (Array.isArray(data)) return data;
  const root = asRecord(data);
  if (root && Array.isArray(root.messages)) return root.messages;
  const got = root
    ? `an object with keys ${Object.keys(root).slice(0, 8).join(", ") || "(none)"}`
    : typeof data;
  return fail(
    path,
    `expected {trajectory_format: "patchloop-1", messages: [...]}, mini-swe-agent's {info, messages: [...]} or a list of messages; got ${got}`,
  );
}

function toolCallsOf(value: unknown, path: string, index: number): ToolCall[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return fail(path, `message ${index}: tool_calls is not a list`);
  return value.map((item, i) => {
    const fn = asRecord(asRecord(item)?.function);
    if (!fn || typeof fn.name !== "string")
      return fail(path, `message ${index}: tool call ${i} has no function name`);
    const args = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    const id = asRecord(item)?.id;
    return {
      id: typeof id === "string" ? id : `call_${index}_${i}`,
      type: "function",
      function: { name: fn.name, arguments: args },
    };
  });
}

function replyOf(m: Record<string, unknown>, path: string, index: number): RecordedReply {
  const content = m.content;
  if (content !== null && typeof content !== "string" && !Array.isArray(content)) {
    return fail(path, `message ${index}: content is neither text, a list of parts nor null`);
  }
  const message: ChatMessage = { role: "assistant", content: content as ChatMessage["content"] };
  const calls = toolCallsOf(m.tool_calls, path, index);
  if (calls && calls.length > 0) message.tool_calls = calls;
  const extra = asRecord(m.extra);
  const response = asRecord(extra?.response);
  const choice = Array.isArray(response?.choices) ? asRecord(response.choices[0]) : null;
  const finish = extra?.finish_reason ?? choice?.finish_reason;
  const usage = asRecord(extra?.usage) ?? asRecord(response?.usage);
  return {
    message,
    finishReason: typeof finish === "string" ? finish : null,
    usage: { prompt_tokens: count(usage?.prompt_tokens), completion_tokens: count(usage?.completion_tokens) },
    cost: count(extra?.cost),
    raw: extra?.raw ?? extra?.response ?? null,
  };
}

/**
 * The assistant replies of a recorded trajectory, in order. Reads patchloop's
 * `{trajectory_format: "patchloop-1", messages}`, mini-swe-agent's `{info, messages}` and a plain
 * list of messages. finish_reason, usage and cost come from the message's `extra` when recorded
 * (patchloop's fields, or mini-swe-agent's `extra.response`), else null / 0.
 * Throws, naming the file and the reason, when it cannot be read or holds no reply.
 */
export function loadRecordedReplies(path: string): RecordedReply[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return fail(path, (err as Error).message);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return fail(path, `not valid JSON (${(err as Error).message})`);
  }
  const replies: RecordedReply[] = [];
  for (const [index, item] of messagesOf(data, path).entries()) {
    const m = asRecord(item);
    if (!m || typeof m.role !== "string") fail(path, `message ${index} has no role`);
    if (m.role === "assistant") replies.push(replyOf(m, path, index));
  }
  if (replies.length === 0) fail(path, "it contains no assistant messages");
  return replies;
}

/**
 * A model that answers with the replies recorded in a trajectory file, one per call, whatever
 * it is asked. Past the last one every call fails (`fatal`). Throws at construction when the file
 * cannot be used.
 */
export function createReplayModel(path: string, opts: { vision?: boolean } = {}): Model {
  const replies = loadRecordedReplies(path);
  const name = `replay:${path}`;
  let next = 0;
  return {
    name,
    vision: opts.vision ?? false,
    async query(request): Promise<ModelResult> {
      if (request.signal?.aborted)
        return { ok: false, kind: "aborted", message: `${name}: request aborted`, tries: 0 };
      const reply = replies[next];
      if (!reply) {
        const message = `${name}: the recording has ${replies.length} replies and all were used (this was call ${next + 1})`;
        next++;
        return { ok: false, kind: "fatal", message, tries: 0 };
      }
      next++;
      const { message, finishReason, usage, cost, raw } = reply;
      return {
        ok: true,
        message: structuredClone(message),
        finishReason,
        usage: { ...usage },
        cost,
        raw,
        tries: 1,
      };
    },
  };
}
