import type { Redis } from "ioredis";
import { type Clock, NoAnswer, within } from "./clock.js";

/** Milliseconds one call to the queue's Redis may take before the queue is taken not to answer. */
export const CALL_LIMIT_MS = 5000;
/** Milliseconds between probes (one PING in flight at most) while the queue does not answer. */
export const PROBE_MS = 1000;

/** Errors that mean no answer came (no connection), as opposed to an answer that was an error. */
const NO_CONNECTION =
  /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|MaxRetriesPerRequest/;

/** What a health watch needs. */
export interface HealthOptions {
  clock: Clock;
  /** The queue's URL as shown (password masked). */
  shown: string;
  say: (line: string) => void;
  /** What goes on meanwhile, for the message (`finished results stay in the queue`, ...). */
  whatWaits: string;
  /** One PING to the queue. */
  ping: () => Promise<unknown>;
  limitMs?: number;
}

/**
 * Whether the queue's Redis answers, from the calls made to it and its connection's events. A
 * call that gets no reply within CALL_LIMIT_MS (a frozen server, a cut network) or fails for want
 * of a connection makes it silent; while it is silent no call is sent (each fails at once with
 * NoAnswer), except one PING at a time, so that nothing piles up for the server to run when it
 * wakes. The first answer makes it answer again. Each change is said once.
 */
export class QueueHealth {
  private state: "unknown" | "answering" | "silent" = "unknown";
  private probe: Promise<unknown> | null = null;
  private cancelProbe: (() => void) | null = null;
  private closed = false;
  private waiting: Array<() => void> = [];
  private readonly limitMs: number;

  constructor(private readonly o: HealthOptions) {
    this.limitMs = o.limitMs ?? CALL_LIMIT_MS;
    this.schedule(0);
  }

  /** Watches a client's connection: closed or failing is silent at once, ready is an answer. */
  watch(client: Redis): void {
    client.on("error", (err: Error & { code?: string }) => this.lost(err.code ?? err.message));
    // a connection that closed and is being made again: silent at once, even when the first try
    // to reconnect has not failed yet (a short restart raises no error at all)
    client.on("reconnecting", () => this.lost("connection closed"));
    client.on("ready", () => this.answered());
  }

  get answering(): boolean {
    return this.state === "answering";
  }

  /** Resolves once the queue has answered (at once when it does now). */
  untilAnswering(): Promise<void> {
    if (this.answering) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** One call to the queue, with the time limit; while it is silent, NoAnswer without sending it. */
  async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (this.state === "silent") throw new NoAnswer(`${what}: the queue at ${this.o.shown} does not answer`);
    try {
      const v = await within(this.o.clock, this.limitMs, fn(), what);
      this.answered();
      return v;
    } catch (err) {
      const e = err as Error;
      if (e instanceof NoAnswer) this.lost(`no reply within ${this.limitMs / 1000} s`);
      else if (NO_CONNECTION.test(e.message)) this.lost(e.message);
      throw err;
    }
  }

  /** The queue did not answer, for `why`. */
  lost(why: string): void {
    if (this.closed || this.state === "silent") return;
    this.state = "silent";
    this.o.say(`the queue at ${this.o.shown} does not answer (${why}); waiting for it: ${this.o.whatWaits}`);
    this.schedule(PROBE_MS);
  }

  /** The queue answered. */
  answered(): void {
    if (this.closed || this.state === "answering") return;
    const was = this.state;
    this.state = "answering";
    this.cancelProbe?.();
    this.cancelProbe = null;
    if (was === "silent") this.o.say(`the queue at ${this.o.shown} answers again`);
    for (const w of this.waiting.splice(0)) w();
  }

  close(): void {
    this.closed = true;
    this.cancelProbe?.();
  }

  /** Sends a PING after `ms` unless one is in flight (still unanswered) or the queue answers. */
  private schedule(ms: number): void {
    this.cancelProbe?.();
    this.cancelProbe = this.o.clock.after(ms, () => {
      this.cancelProbe = null;
      if (this.closed || this.answering) return;
      if (!this.probe) {
        const p = this.o.ping();
        this.probe = p;
        p.then(
          () => this.answered(),
          (err: Error) => {
            if (this.state === "unknown") this.lost(err.message);
          },
        ).finally(() => {
          if (this.probe === p) this.probe = null;
        });
        // a first PING that neither answers nor fails: the server takes connections but runs nothing
        if (this.state === "unknown")
          this.o.clock.after(this.limitMs, () => {
            if (this.state === "unknown") this.lost(`no reply within ${this.limitMs / 1000} s`);
          });
      }
      this.schedule(PROBE_MS);
    });
  }
}
