import { randomBytes } from "node:crypto";
import { DelayedError, type Job, type Queue, UnrecoverableError, WaitingError } from "bullmq";
import type { Redis } from "ioredis";
import {
  type Dispatcher,
  type DispatchHooks,
  type InstanceResult,
  unitKey,
  type WorkerInfo,
  type WorkUnit,
} from "../batch/types.js";
import type { Config } from "../config/schema.js";
import { FileWriteError } from "../util/atomic-write.js";
import { shown } from "./check-text.js";
import { type Clock, NoAnswer, sleep } from "./clock.js";
import { fitJob, type JobFit, type WorkerFit } from "./job-fit.js";
import { type JobHistory, type JobPlan, planJob } from "./job-plan.js";
import { ackKey, cancelKey, interruptKey } from "./keys.js";
import {
  backLine,
  type InstanceJob,
  isReported,
  type OutcomeJob,
  type OutcomeReport,
  type Progress,
  type Refusal,
  startedDeliveries,
  startLine,
} from "./protocol.js";
import type { QueueHealth } from "./queue-health.js";
import { readResult } from "./result-check.js";
import type { ScratchFolder } from "./scratch-folder.js";
import { canonicalJson, signature } from "./signing.js";
import type { Spool } from "./spool.js";
import type { Running, WorkerState } from "./worker-state.js";
import { readHeartbeats } from "./workers.js";

/** A run's dispatcher on this worker and its scratch folder, held while a job of it runs. */
export interface Lease {
  /** The run and config it is for. */
  key: string;
  dispatcher: Dispatcher;
  scratch: ScratchFolder;
}

/** What running jobs needs from the worker process. */
export interface JobContext {
  info: WorkerInfo;
  clock: Clock;
  state: WorkerState;
  health: QueueHealth;
  redis: Redis;
  spool: Spool;
  fit: WorkerFit;
  say: (line: string) => void;
  /** The instance queue (for job logs). */
  instances: Queue;
  /** A run's results queue. */
  resultsOf: (run: string) => Queue;
  /** The dispatcher of a run and config (made on first use), and its release. */
  lease: (run: string, config: Config, modelName: string) => Promise<Lease>;
  release: (lease: Lease) => Promise<void>;
  /** Takes no job for `ms`, for `why`; with `engine`, until the engine answers again. */
  pause: (ms: number, why: string, engine: boolean) => Promise<void>;
  /** Why the engine does not run instances now, or null. */
  engineProblem: () => Promise<string | null>;
  /** A file could not be written: the worker stops (exit 1). */
  fail: () => void;
  /** Milliseconds a job that must wait (`later`) stays out of the queue. */
  laterMs: number;
}

/** What a processor returns: the delivery whose result was sent (null: none, its result was in already). */
export type JobReturn = { delivery: string | null };

/**
 * How `patchloop worker` handles each job BullMQ gives it: checked (job-fit.ts), planned from its
 * history (job-plan.ts), then run as a new delivery through the run's local dispatcher, the same
 * one a batch uses in one process, writing into a scratch folder; its result goes to the run's
 * results queue (kept in the spool until acknowledged). A job this worker cannot run goes back to
 * the queue with a refusal sent to its coordinator, using no delivery; so does one handed back at a
 * shutdown or because the engine stopped answering.
 */
export class JobProcessor {
  private readonly told = new Set<string>();

  constructor(private readonly c: JobContext) {}

  /** BullMQ's processor. */
  async process(job: Job<unknown>, token?: string): Promise<JobReturn> {
    const jobId = String(job.id);
    const fit = fitJob(job.data, jobId, this.c.fit);
    if (!fit.ok && fit.by === "job") throw new UnrecoverableError(`refused: ${fit.problem}`);
    if (!fit.ok) return this.refuse(job, token, fit);
    let plan: JobPlan;
    try {
      plan = planJob(
        jobId,
        this.c.info.id,
        fit.job.deliveries,
        job.failedReason,
        await this.history(job, fit.job.run),
      );
    } catch (err) {
      // its lock lapses and the job comes back to the queue
      if (err instanceof NoAnswer) throw new DelayedError();
      throw err;
    }
    if (plan.kind === "done") {
      this.c.say(`job ${jobId}: ${plan.why}; it is not run again`);
      return { delivery: null };
    }
    if (plan.kind === "give-up") throw new UnrecoverableError(plan.reason);
    if (plan.kind === "later") {
      this.c.say(`job ${jobId}: not now: ${plan.why}`);
      await this.c.health.call("put the job back", () =>
        job.moveToDelayed(this.c.clock.now() + this.c.laterMs, token),
      );
      throw new DelayedError();
    }
    return this.runDelivery(job, token, fit);
  }

  /** What the queue knows of the job's earlier deliveries. */
  private async history(job: Job<unknown>, run: string): Promise<JobHistory> {
    const jobId = String(job.id);
    const h = this.c.health;
    const { logs } = await h.call("read the job's log", () => this.c.instances.getJobLogs(jobId, 0, -1));
    const started = startedDeliveries(logs);
    const marks = await h.call("read the marks", () =>
      this.c.redis.mget(interruptKey(run), cancelKey(jobId), ...started.map(ackKey)),
    );
    const acked = new Set(started.filter((_, i) => marks[i + 2]));
    const waiting = new Set<string>();
    for (const d of started.filter((x) => !acked.has(x))) {
      const state = await h.call("look for a result", () => this.c.resultsOf(run).getJobState(d));
      if (!["waiting", "active", "delayed", "prioritized"].includes(state)) continue;
      // Only a result its coordinator would take is on its way: one forged under the delivery's id
      // (without the queue's secret) must not keep the instance from running again.
      const result = await h.call("read a result", () => this.c.resultsOf(run).getJob(d));
      if (result && readResult(result.data, run, this.c.fit.secret, this.c.fit.secretEnv).ok) waiting.add(d);
    }
    const beats = await h.call("read the heartbeats", () => readHeartbeats(this.c.redis, this.c.clock.now()));
    return {
      logs,
      acked,
      waiting,
      live: new Map(beats.map((b) => [b.id, b.jobs])),
      interrupted: marks[0] !== null,
      cancelled: marks[1] !== null,
    };
  }

  /** This worker cannot run the job: said once per reason, reported to its coordinator, handed back; it pauses. */
  private async refuse(
    job: Job<unknown>,
    token: string | undefined,
    fit: Extract<JobFit, { by: "worker" }>,
  ): Promise<never> {
    const jobId = String(job.id);
    if (!this.told.has(fit.problem)) {
      this.told.add(fit.problem);
      this.c.say(`job ${shown(jobId)}: this worker cannot run it: ${fit.problem}; it goes back to the queue`);
    }
    const ms = this.c.state.refused(fit.problem);
    await this.c.pause(ms, `it could not run the jobs it was given lately (${fit.problem})`, false);
    if (fit.route) await this.report(fit.route, jobId, fit.problem).catch(() => undefined);
    await this.c.health.call("hand the job back", () => job.moveToWait(token)).catch(() => undefined);
    throw new WaitingError();
  }

  /** Tells the job's coordinator that this worker cannot run it (its refusal rule: docs/distributed.md). */
  private async report(
    route: { run: string; instanceId: string },
    jobId: string,
    reason: string,
  ): Promise<void> {
    const refusal: Refusal = { instance_id: route.instanceId, job: jobId, worker: this.c.info, reason };
    const secret = this.c.fit.secret;
    const message = {
      run: route.run,
      refusal,
      ...(secret ? { sig: signature(secret, "refusal", { run: route.run, refusal }) } : {}),
    };
    await this.c.health.call("send a refusal", () =>
      this.c.resultsOf(route.run).add("refusal", message, {
        jobId: `${jobId}.refused.${randomBytes(4).toString("hex")}`,
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: true,
      }),
    );
  }

  /** Runs the job as a new delivery (logged first: the coordinator accepts results of logged deliveries only). */
  private async runDelivery(
    job: Job<unknown>,
    token: string | undefined,
    fit: Extract<JobFit, { ok: true }>,
  ): Promise<JobReturn> {
    const { job: data, config } = fit;
    const jobId = String(job.id);
    if (fit.ignored.length > 0 && !this.told.has(data.run)) {
      this.told.add(data.run);
      this.c.say(
        `run ${data.run}: ignoring the job's ${fit.ignored.join(", ")}: this worker's own settings decide them (docs/distributed.md)`,
      );
    }
    const delivery = `${jobId}.${randomBytes(6).toString("hex")}`;
    try {
      await this.c.health.call("log the start", () => job.log(startLine(delivery, this.c.info)));
    } catch (err) {
      if (err instanceof NoAnswer) throw new DelayedError();
      throw err;
    }
    const lease = await this.c.lease(data.run, config, data.model_name);
    const entry = this.c.state.begin(jobId, data.run, unitKey(data.row.instance_id, data.attempt));
    try {
      let result: InstanceResult | null;
      try {
        result = await lease.dispatcher.run(unitOf(data), this.hooks(job, delivery), entry.abort.signal);
      } catch (err) {
        if (!(err instanceof FileWriteError)) throw err;
        this.c.say(`cannot write ${err.message}; this worker stops (its job goes to another worker)`);
        this.c.fail();
        return await this.handBack(job, token, delivery, entry, `its worker cannot write ${err.message}`);
      }
      return await this.conclude(job, token, delivery, entry, lease, result as InstanceResult);
    } finally {
      this.c.state.end(jobId);
      await lease.scratch.retire(unitOf(data)).catch(() => undefined);
      await this.c.release(lease);
    }
  }

  /** The instance's progress, as the agent's own events, and the start notice, on the job. */
  private hooks(job: Job<unknown>, delivery: string): DispatchHooks {
    const send = (p: Progress) => {
      this.c.health.call("report progress", () => job.updateProgress(p)).catch(() => undefined);
    };
    return {
      onStart: () => send({ type: "start", worker: this.c.info, delivery }),
      onAgentEvent: (e) => {
        if (isReported(e)) send(e);
      },
    };
  }

  /** What becomes of a delivery whose instance ended: handed back, dropped (cancelled), or sent. */
  private async conclude(
    job: Job<unknown>,
    token: string | undefined,
    delivery: string,
    entry: Running,
    lease: Lease,
    result: InstanceResult,
  ): Promise<JobReturn> {
    const id = entry.instanceId;
    const what = this.c.state.after(entry);
    if (what === "hand back") return this.handBack(job, token, delivery, entry, "its worker stopped");
    if (what === "cancelled") {
      this.c.say(`stopped ${id}: its result came from another delivery`);
      return { delivery };
    }
    const { outcome } = result;
    if (outcome.exit_status === "EnvironmentError") {
      const engine = await this.c.engineProblem();
      if (engine) {
        await this.c.pause(this.c.state.refused(engine), `its engine does not answer (${engine})`, true);
        return this.handBack(job, token, delivery, entry, `its worker's engine does not answer: ${engine}`);
      }
    }
    const report: OutcomeReport = {
      outcome: { ...outcome, worker: this.c.info.id, delivery },
      files: await lease.scratch.files(outcome.instance_id, id, this.c.info),
      worker: this.c.info,
      ...(result.replicas ? { replicas: result.replicas } : {}),
    };
    const secret = this.c.fit.secret;
    const message: OutcomeJob = {
      run: entry.run,
      result: report,
      ...(secret ? { sig: signature(secret, "result", { run: entry.run, result: report }) } : {}),
    };
    await this.c.spool.keep(message);
    await this.deliver(message);
    this.c.say(`end ${id} ${outcome.exit_status} (${outcome.api_calls} calls, ${outcome.seconds}s)`);
    return { delivery };
  }

  /** Gives the job back to the queue, logging that this delivery does not count among its deliveries. */
  private async handBack(
    job: Job<unknown>,
    token: string | undefined,
    delivery: string,
    entry: Running,
    why: string,
  ): Promise<never> {
    try {
      await this.c.health.call("log the hand-back", () => job.log(backLine(delivery, this.c.info, why)));
      await this.c.health.call("hand the job back", () => job.moveToWait(token));
      this.c.say(`handed ${entry.instanceId} back to the queue`);
    } catch {
      this.c.say(
        `could not hand ${entry.instanceId} back (the queue does not answer): it comes back once its lock lapses`,
      );
    }
    throw new WaitingError();
  }

  /** Sends a result to its run's coordinator; waits (and says so once) while the queue does not take it. */
  async deliver(message: OutcomeJob): Promise<void> {
    for (let tries = 0; ; tries++) {
      const problem = await this.deliverOnce(message);
      if (problem === null) return;
      if (tries === 0)
        this.c.say(`the result of ${message.result.outcome.instance_id} waits to be sent: ${problem}`);
      await this.c.health.untilAnswering();
      await sleep(this.c.clock, 2000);
    }
  }

  /**
   * One try to send a result: null when it is in the results queue (or its coordinator holds it
   * already), else why not. An acknowledged result is not sent again: a send that timed out while
   * the queue was frozen still reaches it when it wakes, and is recorded, acknowledged and removed
   * before this try.
   */
  async deliverOnce(message: OutcomeJob): Promise<string | null> {
    const delivery = message.result.outcome.delivery;
    try {
      const acked = await this.c.health.call("read the acknowledgement", () =>
        this.c.redis.exists(ackKey(delivery)),
      );
      if (acked > 0) return null;
      await this.c.health.call("send a result", () =>
        this.c.resultsOf(message.run).add("result", message, {
          jobId: delivery,
          attempts: 1000,
          backoff: { type: "fixed", delay: 2000 },
          removeOnComplete: true,
          removeOnFail: false,
        }),
      );
      // BullMQ adds nothing under a job id that is taken: a result forged under this delivery's id
      // (it is in the job's log) would stand in for ours. Replace it, then send ours.
      if ((await this.queued(message)) === "another") {
        await this.c.health.call("remove a forged result", () =>
          this.c.resultsOf(message.run).remove(delivery),
        );
        this.c.say(
          `a result under ${shown(delivery)} was not this worker's: it was removed, and the real one sent`,
        );
        return "a result under its delivery's id was not this worker's";
      }
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }

  /**
   * Whether the results queue holds this very message under its delivery's id (a job there with
   * other content is not ours, whoever put it there).
   */
  async isInQueue(message: OutcomeJob): Promise<boolean> {
    return (await this.queued(message)) === "ours";
  }

  /**
   * What the results queue holds under this message's delivery id: this very message, another one
   * (forged), or nothing (never sent, or already taken by the coordinator and removed).
   */
  private async queued(message: OutcomeJob): Promise<"ours" | "another" | "none"> {
    const delivery = message.result.outcome.delivery;
    const job = await this.c.health.call("look for a result", () =>
      this.c.resultsOf(message.run).getJob(delivery),
    );
    if (job === undefined || job === null) return "none";
    return canonicalJson(job.data) === canonicalJson(message) ? "ours" : "another";
  }
}

/** The unit of work a job names: its instance, or one attempt of it. */
function unitOf(job: InstanceJob): WorkUnit {
  return job.attempt === undefined ? { row: job.row } : { row: job.row, attempt: job.attempt };
}
