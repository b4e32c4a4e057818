import type { Clock } from "./clock.js";
import type { Heartbeat } from "./protocol.js";

/** A job this worker runs now. */
export interface Running {
  run: string;
  instanceId: string;
  abort: AbortController;
  /** Stop it and give the job back to the queue (shutdown), rather than end it as Interrupted. */
  handBack: boolean;
  /** Its instance has its result from another delivery: stop it and send nothing. */
  cancelled: boolean;
}

/** Milliseconds a worker takes no job after its first refusal in a row; doubled with each further one. */
export const PAUSE_MIN_MS = 1000;
/** The longest such pause. */
export const PAUSE_MAX_MS = 60_000;
/** Reasons of refusals a heartbeat lists (newest first). */
const CANNOT_SHOWN = 5;

/**
 * What a `patchloop worker` decides, over its own state: which running jobs an interrupt or a
 * cancel stops, what becomes of a job whose instance ended (sent, dropped, handed back), the
 * shutdown (a grace period, then hand-back; a second signal: at once), and how long it takes no
 * job after refusing ones it cannot run. No I/O: the process (worker-process.ts) acts on it.
 */
export class WorkerState {
  readonly running = new Map<string, Running>();
  private stopping = false;
  private cancelGrace: (() => void) | null = null;
  private pauseMs = 0;
  private pausedFor: string | null = null;
  private readonly cannot = new Map<string, { jobs: number; last: number }>();

  constructor(private readonly o: { clock: Clock; graceMs: number; say: (line: string) => void }) {}

  get isStopping(): boolean {
    return this.stopping;
  }

  /** A job starts (its delivery is logged). */
  begin(jobId: string, run: string, instanceId: string): Running {
    const r: Running = { run, instanceId, abort: new AbortController(), handBack: false, cancelled: false };
    this.running.set(jobId, r);
    this.pauseMs = 0;
    return r;
  }

  end(jobId: string): void {
    this.running.delete(jobId);
  }

  /** A message of the control channel: `interrupt <run>` stops that run's instances, `cancel <job>` that job. */
  control(message: string): void {
    const [verb, what] = message.split(" ");
    if (verb === "interrupt") this.marks(new Set([what]), new Set());
    if (verb === "cancel") this.marks(new Set(), new Set([what]));
  }

  /** The marks in Redis (they cover messages missed): runs interrupted, jobs whose result is in. */
  marks(interrupted: ReadonlySet<string>, cancelled: ReadonlySet<string>): void {
    for (const [jobId, r] of this.running) {
      if (cancelled.has(jobId) && !r.cancelled) {
        r.cancelled = true;
        r.abort.abort();
      }
      if (interrupted.has(r.run) && !r.abort.signal.aborted) r.abort.abort();
    }
  }

  /** What becomes of a job whose instance ended: handed back (shutdown), dropped (cancelled), or its result sent. */
  after(r: Running): "hand back" | "cancelled" | "send" {
    if (r.handBack) return "hand back";
    if (r.cancelled) return "cancelled";
    return "send";
  }

  /**
   * SIGTERM or Ctrl-C. First: no new job, and the running ones get the grace period to finish,
   * then go back to the queue. Second: they go back now. Returns whether this was the first.
   */
  stop(): boolean {
    if (this.stopping) {
      this.o.say("handing the running instances back to the queue now");
      this.handBackAll();
      return false;
    }
    this.stopping = true;
    const n = this.running.size;
    this.o.say(
      n > 0
        ? `stopping: no new instance; ${n} running get ${this.o.graceMs / 1000}s to finish, then go back to the queue (signal again: at once)`
        : "stopping: no instance is running",
    );
    this.cancelGrace = this.o.clock.after(this.o.graceMs, () => this.handBackAll());
    return true;
  }

  /** The last job ended: the grace period is over. */
  stopped(): void {
    this.cancelGrace?.();
  }

  private handBackAll(): void {
    for (const r of this.running.values()) {
      r.handBack = true;
      r.abort.abort();
    }
  }

  /**
   * This worker refused a job (it cannot run it): how many ms it now takes no job, so that one
   * it cannot run goes to another worker instead of coming back here at once: PAUSE_MIN_MS,
   * doubled with each refusal in a row up to PAUSE_MAX_MS; a job it starts ends the row.
   */
  refused(reason: string): number {
    const c = this.cannot.get(reason) ?? { jobs: 0, last: 0 };
    c.jobs++;
    c.last = this.o.clock.now();
    this.cannot.delete(reason);
    this.cannot.set(reason, c);
    if (this.cannot.size > CANNOT_SHOWN) this.cannot.delete(this.cannot.keys().next().value as string);
    this.pauseMs = this.pauseMs === 0 ? PAUSE_MIN_MS : Math.min(this.pauseMs * 2, PAUSE_MAX_MS);
    return this.pauseMs;
  }

  /** It takes no job for now, for `why` (cleared with `resumed`). */
  paused(why: string): void {
    this.pausedFor = why;
  }

  resumed(): void {
    this.pausedFor = null;
  }

  /** What the heartbeat says of this state. */
  beat(): Pick<Heartbeat, "running" | "jobs" | "paused" | "cannot"> {
    return {
      running: this.running.size,
      jobs: [...this.running.keys()],
      ...(this.pausedFor ? { paused: this.pausedFor } : {}),
      cannot: [...this.cannot.entries()]
        .reverse()
        .map(([reason, c]) => ({ reason, jobs: c.jobs, last: new Date(c.last).toISOString() })),
    };
  }
}
