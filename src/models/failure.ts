import { RequestTimeoutError } from "./call-signal.js";
import { ResponseTooLargeError } from "./http-transport.js";
import { ConnectionError, HttpStatusError, InvalidJsonBodyError } from "./json-post.js";
import { retryAfterMs } from "./retry-after.js";
import { sizeVerdict } from "./server-errors.js";

/**
 * What one failed try means for the retry loop. `retryable` failures are tried again while
 * the budget lasts; the others end the query at once.
 */
export interface Failure {
  /**
   * `output_budget`: the prompt fits but prompt + max_tokens does not; `fits` is the largest
   * max_tokens that does (the call is tried once more with it).
   */
  kind: "retryable" | "context_exceeded" | "output_budget" | "fatal" | "aborted";
  /** What failed, in words: status, the server's own message, or the connection problem. */
  message: string;
  status?: number;
  /** Milliseconds the server asked us to wait (Retry-After / retry-after-ms), uncapped. */
  retryAfterMs?: number;
  /** The context window the server named. */
  contextLength?: number;
  /** `output_budget` only: the max_tokens that fits. */
  fits?: number;
}

/**
 * A 2xx JSON body without the fields a reply needs (`200 {}` from an overloaded proxy, a body of
 * another API). Retried like a server error: the next try usually gets a real reply.
 */
export class MalformedResponseError extends Error {
  constructor(detail: string) {
    super(`malformed response: ${detail}`);
    this.name = "MalformedResponseError";
  }
}

/** Statuses worth another try: timeouts, conflicts, rate limits, server errors (5xx, Anthropic's 529). */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

/** The server's own error message from an error body, or the body itself, shortened. */
export function serverMessage(bodyText: string): string {
  try {
    const body = JSON.parse(bodyText) as Record<string, unknown> | null;
    const err = body?.error;
    const candidates = [
      err && typeof err === "object" ? (err as Record<string, unknown>).message : undefined,
      body?.message,
      err,
      body?.detail,
    ];
    const found = candidates.find((c): c is string => typeof c === "string" && c.length > 0);
    if (found) return oneLine(found, 1000);
  } catch {
    // not JSON: use the text
  }
  return bodyText.trim() === "" ? "(empty body)" : oneLine(bodyText, 500);
}

/** Whether an error body says the prompt exceeded the context window (not: prompt + max_tokens). */
export function isContextLengthError(bodyText: string): boolean {
  return (
    sizeVerdict(serverMessage(bodyText))?.kind === "context" || sizeVerdict(bodyText)?.kind === "context"
  );
}

function statusFailure(err: HttpStatusError): Failure {
  const { status } = err;
  const text = serverMessage(err.bodyText);
  const fromText = sizeVerdict(text);
  const fromBody = sizeVerdict(err.bodyText);
  // The message decides; the body's own fields (llama.cpp's n_ctx) may add the numbers.
  const size =
    fromText && fromBody && fromText.kind === fromBody.kind && fromText.contextLength === null
      ? fromBody
      : (fromText ?? fromBody);
  if (size) {
    const contextLength = size.contextLength ?? undefined;
    if (size.kind === "output") {
      return {
        kind: "output_budget",
        status,
        message: `the prompt fits but prompt + max_tokens does not (HTTP ${status}: ${text})`,
        contextLength,
        fits: size.fits,
      };
    }
    return {
      kind: "context_exceeded",
      status,
      message: `context length exceeded (HTTP ${status}: ${text})`,
      contextLength,
    };
  }
  if (retryableStatus(status)) {
    const wait = retryAfterMs(err.headers);
    return { kind: "retryable", status, message: `HTTP ${status}: ${text}`, retryAfterMs: wait ?? undefined };
  }
  let hint = "";
  if (status === 401 || status === 403) hint = " (check the API key and model.api_key_env)";
  if (status === 404) hint = ` (requested ${err.url}; check model.base_url and the model name)`;
  return { kind: "fatal", status, message: `HTTP ${status}: ${text}${hint}` };
}

/**
 * A reply over `model.max_response_bytes`: not tried again (the same request would likely bring the
 * same flood, and each try costs that many bytes), so the call ends and the instance with it.
 */
function tooLargeFailure(err: ResponseTooLargeError): Failure {
  const mib = (err.limit / 1024 ** 2).toFixed(err.limit % 1024 ** 2 === 0 ? 0 : 1);
  const what = err.measured === "decoded" ? "once decompressed" : "as sent";
  return {
    kind: "fatal",
    message:
      `the reply from ${err.url} was larger than model.max_response_bytes (${err.limit} bytes, ${mib} MiB) ` +
      `${what}, so it was dropped unread; a real reply is far smaller. Check the server and ` +
      "model.model_kwargs (max_tokens, logprobs), or raise model.max_response_bytes",
  };
}

/** Node's error and its causes, each with its code where the message lacks it. */
function describeConnection(err: ConnectionError): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = err.cause; e instanceof Error && !seen.has(e) && seen.size < 10; e = e.cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    const text = typeof code === "string" && !e.message.includes(code) ? `${e.message} (${code})` : e.message;
    if (text !== "") parts.push(text);
  }
  return parts.length > 0 ? parts.join(": ") : "connection error";
}

/**
 * Turns what one try threw into a `Failure`: the HTTP response of a non-2xx status (its status,
 * body and Retry-After), a reply over the byte cap, a 2xx body that is not JSON or not a reply, the
 * try's timeout, a connection that failed; `signal` aborted means aborted, whatever was thrown.
 * `timeoutSeconds` is only used in the message.
 */
export function classifyFailure(err: unknown, timeoutSeconds: number, signal?: AbortSignal): Failure {
  if (signal?.aborted) return { kind: "aborted", message: "request aborted" };
  if (err instanceof HttpStatusError) return statusFailure(err);
  if (err instanceof ResponseTooLargeError) return tooLargeFailure(err);
  if (err instanceof InvalidJsonBodyError) {
    const snippet = oneLine(err.bodyText, 200);
    return { kind: "retryable", status: err.status, message: `${err.message}: ${snippet || "(empty)"}` };
  }
  if (err instanceof MalformedResponseError) return { kind: "retryable", message: err.message };
  if (err instanceof RequestTimeoutError)
    return { kind: "retryable", message: `no response within ${timeoutSeconds} s (model.request_timeout)` };
  if (err instanceof ConnectionError)
    return { kind: "retryable", message: `connection failed: ${describeConnection(err)}` };
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { kind: "fatal", message: `unexpected error: ${text}` };
}
