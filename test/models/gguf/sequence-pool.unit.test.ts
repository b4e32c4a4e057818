import { describe, expect, it } from "vitest";
import { SequencePool } from "../../../src/models/gguf/sequence-pool.js";

describe("the sequence pool of the embedded runtime", () => {
  it("gives a task back the sequence it used last, and others the one used longest ago", async () => {
    const pool = new SequencePool(["s0", "s1", "s2"]);
    const a = {};
    const b = {};
    const c = {};
    const la = await pool.acquire(a);
    const lb = await pool.acquire(b);
    expect([la.sequence, lb.sequence]).toEqual(["s0", "s1"]);
    la.release();
    lb.release();
    expect((await pool.acquire(b)).sequence).toBe("s1");
    // s2 was never used: it is the one used longest ago.
    expect((await pool.acquire(c)).sequence).toBe("s2");
    const again = await pool.acquire(a);
    expect(again.sequence).toBe("s0");
    expect(pool.servedLast("s0", a)).toBe(true);
    expect(pool.available).toBe(0);
  });

  it("makes callers wait in order when every sequence is lent, and a released one goes to the first", async () => {
    const pool = new SequencePool(["only"]);
    const first = await pool.acquire({});
    const order: string[] = [];
    const w1 = pool.acquire({}).then((l) => {
      order.push("w1");
      return l;
    });
    const w2 = pool.acquire({}).then((l) => {
      order.push("w2");
      return l;
    });
    first.release();
    first.release(); // a second release gives nothing away
    const l1 = await w1;
    expect(order).toEqual(["w1"]);
    expect(pool.available).toBe(0);
    l1.release();
    await w2;
    expect(order).toEqual(["w1", "w2"]);
  });

  it("drops an aborted wait with the signal's reason, and a later release goes to the next in line", async () => {
    const pool = new SequencePool(["only"]);
    const held = await pool.acquire({});
    const abort = new AbortController();
    const gone = pool.acquire({}, abort.signal);
    const next = pool.acquire({});
    abort.abort(new Error("task interrupted"));
    await expect(gone).rejects.toThrow("task interrupted");
    held.release();
    expect((await next).sequence).toBe("only");
    await expect(pool.acquire({}, AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });

  it("refuses an empty pool", () => {
    expect(() => new SequencePool([])).toThrow("a sequence pool needs at least one sequence");
  });
});
