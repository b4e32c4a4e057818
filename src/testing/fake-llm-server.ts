import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type FakeReplySpec, replyBody, type Wire } from "./fake-llm-wire.js";

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
  | { type: "invalid_json"; body?: string; delayMs?: number };

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

const ROUTES: Record<string, Wire> = { "/v1/chat/completions": "openai", "/v1/messages": "anthropic" };

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
 * Starts an HTTP server on 127.0.0.1 (a free port) speaking `POST /v1/chat/completions` (OpenAI)
 * and `POST /v1/messages` (Anthropic), non-streaming, answering from a queue of scripted
 * behaviours. Other paths get a 404.
 */
export async function startFakeLlmServer(opts: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const queue: FakeBehaviour[] = [];
  const requests: RecordedRequest[] = [];
  const record = opts.record ?? true;
  const prerendered = new Map<Wire, Buffer>();
  let seq = 0;

  function replyBytes(wire: Wire, b: FakeReplySpec, n: number, fromQueue: boolean): string | Buffer {
    if (fromQueue) return JSON.stringify(replyBody(wire, b, n));
    let bytes = prerendered.get(wire);
    if (!bytes) {
      bytes = Buffer.from(JSON.stringify(replyBody(wire, b, 0)));
      prerendered.set(wire, bytes);
    }
    return bytes;
  }

  function respond(res: ServerResponse, wire: Wire, b: FakeBehaviour, n: number, fromQueue: boolean): void {
    if (b.type === "reply") {
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
    if (req.method !== "POST" || !wire) {
      const message = `fake LLM server: no route for ${req.method} ${path} (POST /v1/chat/completions or /v1/messages)`;
      send(res, 404, JSON.stringify({ error: { message, type: "not_found", code: null } }), {});
      return;
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
