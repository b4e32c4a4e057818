import { createAgents, sendRequest } from "./http-transport.js";

/**
 * The `fetch` the SDK clients are given. It reads the whole response body itself, so that
 * (1) an error status keeps the server's body verbatim (the SDKs keep only the parts they know,
 * which loses e.g. vLLM's flat `{object: "error", message}`), and (2) a 200 whose body is not JSON
 * is reported as such instead of as an SDK parse failure. Both come out as typed errors that the
 * SDK wraps (as `cause`) in its connection error; `failure.ts` digs them out.
 *
 * Error messages here stay neutral on purpose: the SDKs treat any fetch error whose text says
 * "timed out" as a timeout and drop the cause.
 */

/** The server answered with a non-2xx status. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
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

/**
 * The fetch handed to the SDKs: sends through http-transport.ts (node:http, no 300 s cap, kept-alive
 * connections per client, bodies over `maxBytes` refused), throws the typed errors above, and returns
 * 2xx JSON bodies as a Response the SDK can parse.
 */
export function createCheckedFetch(maxBytes: number): typeof fetch {
  const agents = createAgents();
  return async (input, init) => {
    const res = await sendRequest(input, init, agents, maxBytes);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (res.status < 200 || res.status > 299)
      throw new HttpStatusError(res.status, res.headers, res.bodyText, url);
    try {
      JSON.parse(res.bodyText);
    } catch {
      throw new InvalidJsonBodyError(res.status, res.bodyText);
    }
    const headers = new Headers({ "content-type": "application/json" });
    const requestId = res.headers.get("x-request-id") ?? res.headers.get("request-id");
    if (requestId) headers.set("x-request-id", requestId);
    return new Response(res.bodyText, { status: res.status, statusText: res.statusText, headers });
  };
}
