import { describe, expect, it } from "vitest";
import { canonicalJson, queueSecret, signature, signatureMatches } from "../../src/distributed/signing.js";

const SECRET = Buffer.from("a-secret-of-32-characters-length");

describe("signatures of queue messages", () => {
  it("the same data gives the same text and signature whatever its key order, also after a trip through JSON", () => {
    const a = {
      run: "r",
      row: { repo: "a/b", instance_id: "a__b-1", n: [1, { y: 2, x: 1 }] },
      skip: undefined,
    };
    const b = { row: { n: [1, { x: 1, y: 2 }], instance_id: "a__b-1", repo: "a/b" }, run: "r" };
    expect(canonicalJson(a)).toBe(
      '{"row":{"instance_id":"a__b-1","n":[1,{"x":1,"y":2}],"repo":"a/b"},"run":"r"}',
    );
    expect(canonicalJson(b)).toBe(canonicalJson(a));
    const sig = signature(SECRET, "job", a);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureMatches(SECRET, "job", JSON.parse(JSON.stringify(b)), sig)).toBe(true);
    expect(signatureMatches(SECRET, "result", a, sig)).toBe(false);
    expect(signatureMatches(SECRET, "job", { ...a, run: "s" }, sig)).toBe(false);
    expect(signatureMatches(Buffer.from("another-secret-of-some-length"), "job", a, sig)).toBe(false);
    expect(signatureMatches(SECRET, "job", a, sig.slice(0, 62))).toBe(false);
    expect(signatureMatches(SECRET, "job", a, "not hex at all")).toBe(false);
  });

  it("the secret comes from the variable run.queue.secret_env names; unset or short is an error saying what to do", () => {
    expect(queueSecret(null, {})).toBe(null);
    expect(queueSecret("PL_SECRET", { PL_SECRET: "0123456789abcdef" })).toEqual(
      Buffer.from("0123456789abcdef"),
    );
    expect(() => queueSecret("PL_SECRET", {})).toThrow(
      "run.queue.secret_env names PL_SECRET, which is not set here; export it with the secret " +
        "(the same value on the coordinator and on every worker, e.g. from openssl rand -hex 32)",
    );
    expect(() => queueSecret("PL_SECRET", { PL_SECRET: "short" })).toThrow(
      "run.queue.secret_env names PL_SECRET, which holds 5 character(s); a shared secret needs at least 16 (e.g. openssl rand -hex 32)",
    );
  });
});
