import { describe, expect, it } from "vitest";
import { NoAnswer } from "../../src/distributed/clock.js";
import { CALL_LIMIT_MS, PROBE_MS, QueueHealth } from "../../src/distributed/queue-health.js";
import { ManualClock, settle } from "./manual-clock.js";

const SHOWN = "redis://:***@10.0.0.5:6379/0";

/** A PING the test answers (or not) by hand. */
function pings() {
  const sent: Array<{ resolve: (v: string) => void; reject: (e: Error) => void }> = [];
  return {
    sent,
    ping: () =>
      new Promise<string>((resolve, reject) => {
        sent.push({ resolve, reject });
      }),
  };
}

function fixture() {
  const clock = new ManualClock();
  const said: string[] = [];
  const p = pings();
  const health = new QueueHealth({
    clock,
    shown: SHOWN,
    say: (l) => said.push(l),
    whatWaits: "results stay",
    ping: p.ping,
  });
  return { clock, said, p, health };
}

const never = () => new Promise<string>(() => {});

describe("QueueHealth: time limits on every call, a message while the queue does not answer (hand-moved clock)", () => {
  it("a first PING that neither answers nor fails (a frozen server) makes it silent after the limit, said once", async () => {
    const { clock, said, p, health } = fixture();
    await clock.advance(0);
    expect(p.sent.length).toBe(1);
    await clock.advance(CALL_LIMIT_MS - 1);
    expect(said).toEqual([]);
    await clock.advance(1);
    expect(said).toEqual([
      `the queue at ${SHOWN} does not answer (no reply within 5 s); waiting for it: results stay`,
    ]);
    // one PING in flight at most: none piles up for the server to run when it wakes
    await clock.advance(10 * PROBE_MS);
    expect(p.sent.length).toBe(1);
    expect(health.answering).toBe(false);
    health.close();
  });

  it("a call without a reply in time fails with NoAnswer; while silent, calls fail at once unsent; the first answer brings it back and wakes who waits", async () => {
    const { clock, said, p, health } = fixture();
    await clock.advance(0);
    p.sent[0].resolve("PONG");
    await settle();
    expect(health.answering).toBe(true);
    const stuck = health.call("write the heartbeat", never);
    const outcome = stuck.then(
      () => "answered",
      (e: Error) => `${e instanceof NoAnswer} ${e.message}`,
    );
    await clock.advance(CALL_LIMIT_MS);
    expect(await outcome).toBe("true write the heartbeat: no reply within 5 s");
    let sent = 0;
    await expect(
      health.call("read the workers", async () => {
        sent++;
        return 1;
      }),
    ).rejects.toThrow(`read the workers: the queue at ${SHOWN} does not answer`);
    expect(sent).toBe(0);
    let woke = false;
    void health.untilAnswering().then(() => (woke = true));
    await clock.advance(PROBE_MS);
    expect(p.sent.length).toBe(2);
    p.sent[1].resolve("PONG");
    await settle();
    expect([health.answering, woke]).toEqual([true, true]);
    expect(said).toEqual([
      `the queue at ${SHOWN} does not answer (no reply within 5 s); waiting for it: results stay`,
      `the queue at ${SHOWN} answers again`,
    ]);
    expect(await health.call("read", async () => 7)).toBe(7);
    health.close();
  });

  it("a lost connection is silence at once; an error that is an answer (a wrong command) is not", async () => {
    const { clock, said, p, health } = fixture();
    await clock.advance(0);
    p.sent[0].resolve("PONG");
    await settle();
    await expect(
      health.call("read", async () => {
        throw new Error("WRONGTYPE Operation against a key holding the wrong kind of value");
      }),
    ).rejects.toThrow("WRONGTYPE");
    expect(health.answering).toBe(true);
    await expect(
      health.call("read", async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
      }),
    ).rejects.toThrow("ECONNREFUSED");
    expect(health.answering).toBe(false);
    expect(said).toEqual([
      `the queue at ${SHOWN} does not answer (connect ECONNREFUSED 127.0.0.1:6379); waiting for it: results stay`,
    ]);
    health.close();
  });
});
