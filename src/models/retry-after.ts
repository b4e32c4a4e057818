import type { ResponseHeaders } from "./http-transport.js";

/**
 * How long a server asks the client to wait before the next try, in milliseconds:
 * `retry-after-ms` (a non-standard header OpenAI sends) wins over `Retry-After`, which is either
 * delay-seconds or an HTTP date (RFC 9110). Returns null when neither is present or parseable.
 * A date in the past means 0.
 */
export function retryAfterMs(headers: ResponseHeaders, now: number = Date.now()): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms);
  const value = headers.get("retry-after");
  if (value === null) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
