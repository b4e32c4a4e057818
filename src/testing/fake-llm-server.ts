import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  constraintProblem,
  constraintRegex,
  contextErrorBody,
  type FakeFlavor,
  reasoningFieldOf,
  reasoningProblem,
  refusesOutputOverflow,
  selfDescription,
} from "./fake-llm-flavor.js";
import { gzipFlood, sendFlood } from "./fake-llm-flood.js";
import {
  type FakeReplySpec,
  type ReasoningPlacement,
  replyBody,
  responsesInputProblem,
  type Wire,
} from "./fake-llm-wire.js";

export { DEEPSEEK_MISSING_REASONING, type FakeFlavor } from "./fake-llm-flavor.js";
export type { FakeReplySpec, FakeToolCall } from "./fake-llm-wire.js";

/**
 * One scripted behaviour of the fake server, consumed by one request (first in, first out).
 * `delayMs` waits before answering.
 */
export type FakeBehaviour =
  /** A normal 200 reply in the wire format of the path that was called. */
  | ({ type: "reply"; delayMs?: number } & FakeReplySpec)
  /**
   * Any status with any body, typically an error. `body`: a string is sent verbatim as text/plain,
   * anything else as JSON. With status 200 it serves a hand-written reply body.
   */
  | { type: "error"; status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  /** Read the request and never answer (the connection stays open until the client gives up). */
  | { type: "hang" }
  /**
   * Drop the connection. Without `partialBody`: before any response byte. With it: after the
   * status line, headers (announcing a longer body) and those bytes.
   */
  | { type: "close"; partialBody?: string; delayMs?: number }
  /** A 200 with `content-type: application/json` whose body is not JSON. */
  | { type: "invalid_json"; body?: string; delayMs?: number }
  /**
   * A reply to a prompt of `promptTokens` tokens: when the prompt, or prompt + the request's
   * max_tokens, does not fit the flavor's context length, the server answers with its own context
   * error (400) and keeps this behaviour queued, so a retry with a lower max_tokens gets the reply.
   */
  | ({ type: "sized"; promptTokens: number } & FakeReplySpec)
  /**
   * A 200 reply of `bytes` bytes whose content never ends (fake-llm-flood.ts): streamed, chunked,
   * as fast as the client reads; with `gzip`, a gzip body of about 1 KB per MiB that decodes to
   * `bytes`, sent with its Content-Length.
   */
  | { type: "flood"; bytes: number; gzip?: boolean };

/** A request the server received. `body` is the parsed JSON, or the raw text when it was not JSON. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeLlmServerOptions {
  /**
   * What to do when the queue is empty. Default: an HTTP 400 whose message says that nothing
   * was queued (so an unexpected request fails loudly instead of getting a made-up answer).
   */
  defaultBehaviour?: FakeBehaviour;
  /** Record requests in `requests` (default true). Turn off for load tests. */
  record?: boolean;
  /**
   * Which server to be (fake-llm-flavor.ts): where replies carry reasoning, the self-description
   * endpoints (GET /v1/models, /props, /api/version), checks of constraint fields in requests
   * (misused ones get a 400; a scripted reply that does not match the regex sent gets a 500), and
   * the wording of context errors. Without it: reasoning in `reasoning_content`, no GET routes,
   * no checks.
   */
  flavor?: FakeFlavor;
  /** The served model's context window (default 32768), reported and enforced by `sized` replies. */
  contextLength?: number;
  /** `false`: no `GET /v1/models` (a 404, as some proxies answer); default true. */
  modelList?: boolean;
}

/** A running fake server. `url` has no trailing slash and no `/v1`. */
export interface FakeLlmServer {
  url: string;
  /** Requests received so far, in arrival order (empty when `record` is off). */
  requests: RecordedRequest[];
  /** Appends behaviours to the queue. */
  enqueue(...behaviours: FakeBehaviour[]): void;
  /** Behaviours not consumed yet. */
  pending(): number;
  /** Stops listening and drops every open connection (hanging requests included). */
  close(): Promise<void>;
}

const ROUTES: Record<string, Wire> = {
  "/v1/chat/completions": "openai",
  "/v1/responses": "responses",
  "/v1/messages": "anthropic",
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string>) {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}

/**
 * Starts an HTTP server on 127.0.0.1 (a free port) speaking `POST /v1/chat/completions` (OpenAI),
 * `POST /v1/responses` (the Responses API) and `POST /v1/messages` (Anthropic), non-streaming, answering from a queue of scripted
 * behaviours; `GET /v1/models` lists one model. Other paths get a 404.
 */
export async function startFakeLlmServer(opts: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const queue: FakeBehaviour[] = [];
  const requests: RecordedRequest[] = [];
  const record = opts.record ?? true;
  const prerendered = new Map<Wire, Buffer>();
  const flavor = opts.flavor;
  const contextLength = opts.contextLength ?? 32768;
  const placement: ReasoningPlacement = flavor ? reasoningFieldOf(flavor) : "reasoning_content";
  let seq = 0;

  function replyBytes(wire: Wire, b: FakeReplySpec, n: number, fromQueue: boolean): string | Buffer {
    if (fromQueue) return JSON.stringify(replyBody(wire, b, n, placement));
    let bytes = prerendered.get(wire);
    if (!bytes) {
      bytes = Buffer.from(JSON.stringify(replyBody(wire, b, 0, placement)));
      prerendered.set(wire, bytes);
    }
    return bytes;
  }

  /** The flavor's objection to a chat request (constraint fields, a reply outside the regex sent), or null. */
  function objection(
    body: unknown,
    next: FakeBehaviour | undefined,
  ): { status: number; message: string } | null {
    if (!flavor || typeof body !== "object" || body === null) return null;
    const request = body as Record<string, unknown>;
    const problem = constraintProblem(flavor, request) ?? reasoningProblem(flavor, request);
    if (problem) return { status: 400, message: problem };
    const pattern = constraintRegex(request);
    if (pattern === null || !next || (next.type !== "reply" && next.type !== "sized")) return null;
    const text = typeof next.content === "string" ? next.content : "";
    if (!new RegExp(`^(?:${pattern})$`).test(text))
      return {
        status: 500,
        message: `fake ${flavor}: the scripted reply does not match the regex the request sent`,
      };
    return null;
  }

  /** The context error a `sized` reply gets for this request, or null when it fits. */
  function sizeError(b: { promptTokens: number }, body: unknown): Record<string, unknown> | null {
    const request = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const asked = request.max_completion_tokens ?? request.max_tokens ?? request.max_output_tokens;
    const maxTokens = typeof asked === "number" ? asked : null;
    const f = flavor ?? "openai";
    const overflow =
      maxTokens !== null && b.promptTokens + maxTokens > contextLength && refusesOutputOverflow(f);
    if (b.promptTokens < contextLength && !overflow) return null;
    return contextErrorBody(f, { contextLength, promptTokens: b.promptTokens, maxTokens });
  }

  function respond(res: ServerResponse, wire: Wire, b: FakeBehaviour, n: number, fromQueue: boolean): void {
    if (b.type === "reply" || b.type === "sized") {
      send(res, 200, replyBytes(wire, b, n, fromQueue), {});
    } else if (b.type === "error") {
      const text = typeof b.body === "string" ? b.body : JSON.stringify(b.body ?? {});
      const type = typeof b.body === "string" ? "text/plain" : "application/json";
      send(res, b.status, text, { "content-type": type, ...b.headers });
    } else if (b.type === "invalid_json") {
      send(res, 200, b.body ?? '{"id": "chatcmpl-broken", "choices": [', {});
    } else if (b.type === "close" && b.partialBody !== undefined) {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(b.partialBody) + 1000),
      });
      res.write(b.partialBody, () => res.socket?.destroy());
    } else if (b.type === "close") {
      res.socket?.destroy();
    } else if (b.type === "flood" && b.gzip) {
      send(res, 200, gzipFlood(b.bytes), { "content-encoding": "gzip" });
    } else if (b.type === "flood") {
      sendFlood(res, b.bytes);
    }
    // hang: never answer
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = (req.url ?? "/").split("?")[0];
    const n = ++seq;
    if (record) {
      requests.push({ method: req.method ?? "", path, headers: req.headers, body: parseMaybeJson(text) });
    }
    const wire = ROUTES[path];
    const described =
      req.method === "GET" && flavor && opts.modelList !== false
        ? selfDescription(flavor, path, "fake-model", contextLength)
        : null;
    if (described) {
      send(res, 200, JSON.stringify(described), {});
      return;
    }
    // Without a flavor the model list still answers, as every OpenAI-compatible server's does
    // (the batch preflight asks it), naming no server kind.
    if (req.method === "GET" && path === "/v1/models" && opts.modelList !== false) {
      send(
        res,
        200,
        JSON.stringify({ object: "list", data: [{ id: "fake", object: "model", owned_by: "fake" }] }),
        {},
      );
      return;
    }
    if (req.method !== "POST" || !wire) {
      const message = `fake LLM server: no route for ${req.method} ${path} (POST /v1/chat/completions, /v1/responses or /v1/messages)`;
      send(res, 404, JSON.stringify({ error: { message, type: "not_found", code: null } }), {});
      return;
    }
    const parsed = parseMaybeJson(text);
    const badInput = wire === "responses" ? responsesInputProblem(parsed) : null;
    const objected = badInput
      ? { status: 400, message: `fake responses API: ${badInput}` }
      : objection(parsed, queue[0]);
    if (objected) {
      send(
        res,
        objected.status,
        JSON.stringify({ error: { message: objected.message, type: "invalid_request_error", code: null } }),
        {},
      );
      return;
    }
    const head = queue[0];
    if (head?.type === "sized") {
      const error = sizeError(head, parsed);
      if (error) {
        send(res, 400, JSON.stringify(error), {});
        return;
      }
    }
    const queued = queue.shift();
    const behaviour: FakeBehaviour = queued ??
      opts.defaultBehaviour ?? {
        type: "error",
        status: 400,
        body: { error: { message: `fake LLM server: request #${n} arrived but no behaviour was queued` } },
      };
    const delay = "delayMs" in behaviour ? (behaviour.delayMs ?? 0) : 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    respond(res, wire, behaviour, n, queued !== undefined);
  }

  const server = createServer((req, res) => {
    res.on("error", () => {});
    handle(req, res).catch(() => res.socket?.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...behaviours) => {
      queue.push(...behaviours);
    },
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
