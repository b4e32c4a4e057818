import { describe, expect, it } from "vitest";
import { classifyFailure, isContextLengthError, serverMessage } from "../../src/models/failure.js";
import { backoffMs, withRetries } from "../../src/models/retry.js";
import { retryAfterMs } from "../../src/models/retry-after.js";

const policy = { max_tries: 5, initial_delay: 2, max_delay: 10, max_total: 0 };

describe("retry building blocks", () => {
  it("doubles the delay up to max_delay, with jitter between half and all of it", () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, policy, () => 1))).toEqual([2000, 4000, 8000, 10000]);
    expect([1, 2, 3, 4].map((n) => backoffMs(n, policy, () => 0))).toEqual([1000, 2000, 4000, 5000]);
    expect(backoffMs(1, policy, () => 0.5)).toBe(1500);
  });

  it("reads Retry-After as seconds or an HTTP date, and retry-after-ms first", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:12 GMT" }), now)).toBe(12000);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(new Headers(), now)).toBeNull();
  });

  it("extracts the server's message from the error shapes in use", () => {
    expect(serverMessage('{"error":{"message":"nested"}}')).toBe("nested");
    expect(serverMessage('{"object":"error","message":"flat"}')).toBe("flat");
    expect(serverMessage('{"error":"plain string"}')).toBe("plain string");
    expect(serverMessage('{"detail":"Not Found"}')).toBe("Not Found");
    expect(serverMessage("  upstream\n  down ")).toBe("upstream down");
    expect(serverMessage("")).toBe("(empty body)");
  });

  it("recognises context-length errors and nothing else", () => {
    expect(isContextLengthError('{"error":{"code":"context_length_exceeded","message":"x"}}')).toBe(true);
    expect(
      isContextLengthError(
        "The input (9000 tokens) is longer than the model's context length (8192 tokens).",
      ),
    ).toBe(true);
    expect(isContextLengthError('{"error":{"message":"Rate limit reached"}}')).toBe(false);
  });

  it("classifies an unexpected error as fatal, naming it", () => {
    expect(classifyFailure(new TypeError("x is not a function"), 5)).toEqual({
      kind: "fatal",
      message: "unexpected error: TypeError: x is not a function",
    });
  });

  it("makes one try when max_tries is 1 and never throws", async () => {
    let calls = 0;
    const result = await withRetries(
      "m",
      async () => {
        calls++;
        throw new Error("down");
      },
      { max_tries: 1, initial_delay: 1, max_delay: 1, max_total: 0 },
      { sleep: async () => {}, random: () => 0, classify: () => ({ kind: "retryable", message: "down" }) },
    );
    expect(result).toEqual({
      ok: false,
      kind: "retries_exhausted",
      message: "m: gave up after 1 try; last error: down",
      status: undefined,
      tries: 1,
    });
    expect(calls).toBe(1);
  });

  it("gives up when the call's tries and waits would pass model.retry.max_total", async () => {
    let calls = 0;
    const waits: number[] = [];
    const result = await withRetries(
      "m",
      async () => {
        calls++;
        throw new Error("no response");
      },
      // 10 s, 20 s, 40 s waits (no jitter at random 1): after 10 + 20 the next 40 would pass 60.
      { max_tries: 50, initial_delay: 10, max_delay: 100, max_total: 60 },
      {
        sleep: async () => {},
        random: () => 0.9999999,
        classify: () => ({ kind: "retryable", message: "no response within 600 s (model.request_timeout)" }),
        onRetry: (n) => waits.push(Math.round(n.waitMs / 1000)),
      },
    );
    expect(waits).toEqual([10, 20]);
    expect(calls).toBe(3);
    expect(result).toEqual({
      ok: false,
      kind: "retries_exhausted",
      message:
        "m: gave up after 3 tries and 30 s (model.retry.max_total is 60 s); last error: no response within 600 s (model.request_timeout)",
      status: undefined,
      tries: 3,
    });
  });
});
