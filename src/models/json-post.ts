import { createAgents, type ResponseHeaders, ResponseTooLargeError, sendRequest } from "./http-transport.js";

/** The server answered with a non-2xx status: the response as it came, for failure.ts to read. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: ResponseHeaders,
    readonly bodyText: string,
    readonly url: string,
  ) {
    super(`HTTP ${status}`);
    this.name = "HttpStatusError";
  }
}

/** The server answered 2xx with a body that does not parse as JSON. */
export class InvalidJsonBodyError extends Error {
  constructor(
    readonly status: number,
    readonly bodyText: string,
  ) {
    super(`HTTP ${status} with a body that is not valid JSON`);
    this.name = "InvalidJsonBodyError";
  }
}

/** No complete response: the connection was refused, reset or closed early (`cause`: Node's error). */
export class ConnectionError extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = "ConnectionError";
  }
}

/** Sends a JSON body to `url`, resolving to the reply's JSON; see {@link createJsonPost}. */
export type JsonPost = (url: string, body: string | Uint8Array, signal: AbortSignal) => Promise<unknown>;

/**
 * The POST of one model client: `headers` on every request (request-headers.ts), sent through
 * http-transport.ts (node:http, kept-alive connections per client, bodies over `maxBytes` refused
 * as {@link ResponseTooLargeError}). Resolves to the parsed body of a 2xx reply; rejects with
 * {@link HttpStatusError} (any other status, body kept verbatim), {@link InvalidJsonBodyError},
 * {@link ConnectionError}, or the transport's `AbortError` when `signal` aborts.
 */
export function createJsonPost(maxBytes: number, headers: Record<string, string>): JsonPost {
  const agents = createAgents();
  return async (url, body, signal) => {
    const res = await sendRequest(url, { method: "POST", headers, body, signal }, agents, maxBytes).catch(
      (err: unknown) => {
        if (err instanceof ResponseTooLargeError || (err as Error)?.name === "AbortError") throw err;
        throw err instanceof Error ? new ConnectionError(err) : err;
      },
    );
    if (res.status < 200 || res.status > 299)
      throw new HttpStatusError(res.status, res.headers, res.bodyText, url);
    try {
      return JSON.parse(res.bodyText) as unknown;
    } catch {
      throw new InvalidJsonBodyError(res.status, res.bodyText);
    }
  };
}
