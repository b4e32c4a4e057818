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

/** Wraps `base` (default: the global fetch) as described above. */
export function createCheckedFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const text = await response.text();
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!response.ok) throw new HttpStatusError(response.status, response.headers, text, url);
    try {
      JSON.parse(text);
    } catch {
      throw new InvalidJsonBodyError(response.status, text);
    }
    const headers = new Headers({ "content-type": "application/json" });
    const requestId = response.headers.get("x-request-id") ?? response.headers.get("request-id");
    if (requestId) headers.set("x-request-id", requestId);
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  };
}
