import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** A complete HTTP response, body read to the end. */
export interface RawResponse {
  status: number;
  statusText: string;
  headers: Headers;
  bodyText: string;
}

/** The request part of the fetch interface that the SDKs use. */
export type FetchInput = string | URL | Request;

function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers["content-encoding"] ?? "").toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return res.pipe(createGunzip());
  if (encoding === "deflate") return res.pipe(createInflate());
  if (encoding === "br") return res.pipe(createBrotliDecompress());
  return res;
}

function toHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return headers;
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
    // neutral on purpose (no URL either): the SDKs take any fetch error whose text speaks of time as a timeout
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
 * Sends one request with node:http(s) and reads the whole response. Used instead of the global
 * fetch because Node's fetch gives up on a response whose headers take more than 300 s, and a
 * local model generating a long non-streamed reply can take longer; here the only time limit is
 * the SDK's own (`model.request_timeout`, delivered through `init.signal`). Connections are kept
 * alive through `agents`. An abort rejects with an error named `AbortError`, as fetch does.
 *
 * A body over `maxBytes`, on the wire or decoded (a small gzip body can decode to gigabytes), rejects
 * with {@link ResponseTooLargeError} as soon as it passes the cap: at most one chunk past it is
 * ever read, and what was read is dropped.
 */
export function sendRequest(
  input: FetchInput,
  init: RequestInit | undefined,
  agents: { http: HttpAgent; https: HttpsAgent },
  maxBytes: number = PROBE_MAX_BYTES,
): Promise<RawResponse> {
  const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  const headers = Object.fromEntries(new Headers(init?.headers).entries());
  const body = init?.body;
  if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
    return Promise.reject(new TypeError("http-transport sends string or byte bodies only"));
  }
  const signal = init?.signal ?? undefined;
  return new Promise<RawResponse>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const https = url.protocol === "https:";
    const send = https ? httpsRequest : httpRequest;
    const req = send(url, {
      method: init?.method ?? "GET",
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
