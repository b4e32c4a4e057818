import { handedBack, startedBy, startedDeliveries } from "./protocol.js";

/**
 * What a worker does with an instance job it was given, from what the queue knows of the job's
 * earlier deliveries. Pure: the worker reads the history (job-history in worker-process.ts) and
 * acts on the plan.
 */

/** What the queue knows of a job's earlier deliveries. */
export interface JobHistory {
  /** The job's log (start and back lines, protocol.ts). */
  logs: string[];
  /** Deliveries whose result the coordinator holds (acknowledged). */
  acked: ReadonlySet<string>;
  /** Deliveries whose result waits in the run's results queue. */
  waiting: ReadonlySet<string>;
  /** The live workers, each with the jobs its last heartbeat said it runs. */
  live: ReadonlyMap<string, readonly string[]>;
  /** The run's coordinator was interrupted (Ctrl-C): nothing of it starts. */
  interrupted: boolean;
  /** The instance's result is in (a cancel mark): nothing more of it runs. */
  cancelled: boolean;
}

export type JobPlan =
  /** Run it now, as a new delivery. */
  | { kind: "run" }
  /** Its result is in: end the job without running it. */
  | { kind: "done"; why: string }
  /** Not now: back to the queue for a while, using no delivery. */
  | { kind: "later"; why: string }
  /** Its deliveries are spent: fail the job (its coordinator records it as EnvironmentError). */
  | { kind: "give-up"; reason: string };

/**
 * The plan for job `jobId` on worker `me`, which may end `allowed` deliveries without a result.
 * Deliveries that count are those started (logged) and not handed back: a worker killed mid-job, or
 * cut off from the queue for longer than its lock. A job that came back only because its lock
 * lapsed while the queue was away, and whose delivery still runs on a live worker, or whose result
 * is on its way, is not started again.
 */
export function planJob(
  jobId: string,
  me: string,
  allowed: number,
  lastError: string | undefined,
  h: JobHistory,
): JobPlan {
  const started = startedDeliveries(h.logs);
  const back = new Set(handedBack(h.logs));
  if (h.cancelled || started.some((d) => h.acked.has(d)))
    return { kind: "done", why: "its result is in already" };
  const sent = started.find((d) => h.waiting.has(d));
  if (sent) return { kind: "later", why: `the result of delivery ${sent} waits for its coordinator` };
  if (h.interrupted) return { kind: "later", why: "its run's coordinator was interrupted" };
  const open = started.filter((d) => !back.has(d));
  const last = open.at(-1);
  const holder = last ? startedBy(h.logs).get(last) : undefined;
  if (holder === me) return { kind: "later", why: "this worker runs it already" };
  if (holder && h.live.get(holder)?.includes(jobId))
    return {
      kind: "later",
      why: `delivery ${last} still runs on worker ${holder} (its lock lapsed while the queue did not answer)`,
    };
  if (open.length >= allowed) {
    const spent = `${open.length} ${open.length === 1 ? "delivery" : "deliveries"}`;
    return {
      kind: "give-up",
      reason:
        `given up after ${spent} that ended without a result (their worker was killed, or cut ` +
        `off from the queue for longer than its lock)${lastError ? `; last error: ${lastError}` : ""}`,
    };
  }
  return { kind: "run" };
}
