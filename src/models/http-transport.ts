import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** A response's headers, looked up by name in any case (what `retry-after.ts` and messages read). */
export interface ResponseHeaders {
  get(name: string): string | null;
}

/** A complete HTTP response, body read to the end. */
export interface RawResponse {
  status: number;
  statusText: string;
  headers: ResponseHeaders;
  bodyText: string;
}

/** What to send: the method (default GET), header names and values, a string or byte body. */
export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers["content-encoding"] ?? "").toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return res.pipe(createGunzip());
  if (encoding === "deflate") return res.pipe(createInflate());
  if (encoding === "br") return res.pipe(createBrotliDecompress());
  return res;
}

/** node:http's headers (names already lower case), not the global Headers: that loads Node's fetch. */
function toHeaders(res: IncomingMessage): ResponseHeaders {
  const headers = res.headers;
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/**
 * The most bytes a probe (a model list, `/props`) may answer with; model calls pass
 * `model.max_response_bytes` instead.
 */
export const PROBE_MAX_BYTES = 16 * 1024 ** 2;

/**
 * A response larger than the cap: `sent` counts the bytes on the wire (what Content-Length says,
 * or what arrived), `decoded` the bytes after Content-Encoding was undone. Reading stopped at the
 * cap and the connection was dropped, so nothing past it was kept.
 */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly measured: "sent" | "decoded",
    readonly url: string,
  ) {
    super(`the response passed ${limit} bytes (${measured}); reading stopped there`);
    this.name = "ResponseTooLargeError";
  }
}

function abortError(): Error {
  const err = new Error("The request was aborted");
  err.name = "AbortError";
  return err;
}

/**
 * Sends one request with node:http(s) and reads the whole response: the one HTTP layer of the model
 * clients (json-post.ts), the server probes (server-detect.ts) and the batch preflight. Not the
 * global fetch: Node's fetch gives up on a response whose headers take more than 300 s, and a local
 * model generating a long non-streamed reply can take longer; here the only time limit is the
 * caller's (`model.request_timeout`, delivered through `options.signal`). Connections are kept
 * alive through `agents`. An abort rejects with an error named `AbortError`, as fetch does.
 *
 * A body over `maxBytes`, on the wire or decoded (a small gzip body can decode to gigabytes), rejects
 * with {@link ResponseTooLargeError} as soon as it passes the cap: at most one chunk past it is
 * ever read, and what was read is dropped.
 */
export function sendRequest(
  input: string | URL,
  options: RequestOptions,
  agents: { http: HttpAgent; https: HttpsAgent },
  maxBytes: number = PROBE_MAX_BYTES,
): Promise<RawResponse> {
  const url = new URL(input);
  const { headers = {}, body, signal } = options;
  return new Promise<RawResponse>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const https = url.protocol === "https:";
    const send = https ? httpsRequest : httpRequest;
    const req = send(url, {
      method: options.method ?? "GET",
      headers,
      agent: https ? agents.https : agents.http,
    });
    const onAbort = () => {
      req.destroy(abortError());
      reject(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal?.removeEventListener("abort", onAbort);
    req.on("error", (err) => {
      settle();
      reject(err);
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let over = false;
      const stream = decoded(res);
      const tooLarge = (measured: "sent" | "decoded") => {
        if (over) return;
        over = true;
        chunks.length = 0;
        settle();
        stream.destroy();
        res.destroy();
        req.destroy();
        reject(new ResponseTooLargeError(maxBytes, measured, url.href));
      };
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > maxBytes) return tooLarge("sent");
      if (stream !== res) {
        let sent = 0;
        res.on("data", (c: Buffer) => {
          sent += c.length;
          if (sent > maxBytes) tooLarge("sent");
        });
      }
      stream.on("data", (c: Buffer) => {
        if (over) return;
        kept += c.length;
        if (kept > maxBytes) return tooLarge(stream === res ? "sent" : "decoded");
        chunks.push(c);
      });
      stream.on("error", (err) => {
        if (over) return;
        settle();
        reject(err);
      });
      res.on("aborted", () => {
        if (over) return;
        settle();
        reject(
          Object.assign(new Error("the connection closed before the response was complete"), {
            code: "ECONNRESET",
          }),
        );
      });
      stream.on("end", () => {
        if (over) return;
        settle();
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? "",
          headers: toHeaders(res),
          bodyText: Buffer.concat(chunks, kept).toString("utf8"),
        });
      });
    });
    req.end(body ?? undefined);
  });
}

/** Keep-alive agents for one client. */
export function createAgents(): { http: HttpAgent; https: HttpsAgent } {
  return { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
}
