import { redactSecrets } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import { SUBMIT_MARKER } from "../config/template-vars.js";
import type { Environment } from "../environments/types.js";
import type { AgentLocalization } from "../localize/agent-hook.js";
import type { ChatMessage, Model, ModelResult, Usage } from "../models/types.js";
import type { ToolResult } from "../tools/base/types.js";
import type { ActionRunner } from "./action-runner.js";
import {
  createHistoryPolicy,
  type HistoryPolicy,
  type RequestRecord,
  recordRequest,
  requestRecord,
} from "./history/index.js";
import { type LimitHit, limitsFor, type Progress, type StopCondition, timeLimit } from "./limits.js";
import { addCall, addStats } from "./model-stats.js";
import { observationMessages } from "./observe.js";
import { cleanPatch } from "./patch-filter.js";
import { createProtocol } from "./protocols/create.js";
import { type Action, type Protocol, textOf } from "./protocols/types.js";
import { capToolCalls, droppedActionsMessage, rejectionMessages, replyMessage } from "./step-messages.js";
import { AgentTemplates } from "./templates.js";
import { TrajectoryRecorder } from "./trajectory.js";
import type { ExitStatus, Trajectory } from "./trajectory-types.js";
import { versions } from "./versions.js";
import { headCommit, workTreeDiff } from "./work-tree-diff.js";

/**
 * What the loop reports as it goes (the CLI prints these; batch runs count them), each with the
 * facts as values, never to be read back out of a message:
 * - `message`: a message was added to the trajectory (what the file will hold);
 * - `reply`: the model's reply was read: its thought, and its actions (null when it cannot run);
 * - `action`: an action is about to run (as a hook may have changed it);
 * - `observation`: an action ran: its result and the text the model is shown;
 * - `rejected`: a reply that cannot run was answered (a format error, or a reply cut off);
 * - `model_call`: a model call succeeded, with its usage and cost (what caps and totals count);
 * - `model_retry`: a model call failed and is tried again after `waitSeconds`;
 * - `exit`: the task ended.
 */
export type AgentEvent =
  | { type: "message"; message: ChatMessage; step: number }
  | { type: "reply"; step: number; message: ChatMessage; thought: string; actions: Action[] | null }
  | { type: "action"; step: number; action: Action }
  | { type: "observation"; step: number; action: Action; result: ObservedResult; text: string }
  | { type: "rejected"; step: number; text: string; cutOff: boolean }
  | { type: "model_call"; step: number; usage: Usage; cost: number; tries: number }
  | {
      type: "model_retry";
      step: number;
      tryNumber: number;
      maxTries: number;
      waitSeconds: number;
      reason: string;
    }
  | { type: "exit"; status: ExitStatus; message: string };

/** What an `observation` event says of the action's run. */
export interface ObservedResult {
  returncode: number;
  timedOut: boolean;
  interrupted: boolean;
  /** False when a hook declined the action (the model got the hook's message instead). */
  ran: boolean;
  durationMs: number;
}

/** What a `beforeAction` hook decides about an action the model asked for. */
export type ActionDecision =
  /** Run it (possibly changed, e.g. a command edited by a person). */
  | { run: true; action: Action }
  /** Do not run it: the model gets `message` as the action's observation instead. */
  | { run: false; message: string };

/**
 * Hooks around the loop (an interactive front asks a person here). Each may be async; a hook that
 * throws ends the task as EnvironmentError with its message.
 */
export interface AgentHooks {
  /** Before each action runs. Default: run it as it is. */
  beforeAction?(action: Action, step: number): Promise<ActionDecision> | ActionDecision;
  /** After each action ran, with its result. */
  afterAction?(action: Action, result: ToolResult, step: number): Promise<void> | void;
  /**
   * When a stop condition is reached (limits): return true to go on anyway (the person raised the
   * limit), false to end the task with that status. Default: end it.
   */
  onLimit?(hit: LimitHit, progress: Progress): Promise<boolean> | boolean;
}

export interface AgentOptions {
  config: Config;
  model: Model;
  env: Environment;
  runner: ActionRunner;
  task: string;
  /** Dataset row fields for the templates (`instance.*`). */
  instance?: Record<string, unknown>;
  instanceId?: string;
  /** The attempt of the instance (batches with `run.attempts` above 1), recorded in the trajectory. */
  attemptNumber?: number;
  /** Where to save the trajectory after every step; none: kept in memory only. */
  trajectoryPath?: string;
  onEvent?: (event: AgentEvent) => void;
  hooks?: AgentHooks;
  /** Aborting ends the task as Interrupted (the running command and model call are stopped). */
  signal?: AbortSignal;
  /**
   * The commit the work tree starts at, when the caller made the checkout (the diff on exit is
   * taken against it); otherwise it is read from the environment with `git rev-parse HEAD`.
   */
  baseCommit?: string;
  /**
   * The fault localization made before step 1 (src/localize/agent-hook.ts): the templates' `localization`,
   * recorded in `info.localization`; a re-rank call's tokens and cost count in model_stats (not as a step).
   */
  localization?: AgentLocalization;
}

export interface AgentResult {
  exitStatus: ExitStatus;
  exitMessage: string;
  /** The patch: what was submitted, or the work tree's diff (when diff_on_exit). */
  submission: string;
  /** The commit the work tree started at (the patch's base), when known. */
  baseCommit: string | null;
  /**
   * The work tree's diff against `baseCommit` as taken at the exit (diff_on_exit, nothing
   * submitted), before the patch filter: the task runner's look at the tree reuses it instead of
   * taking it again. Absent when the agent took none (a submission, no base, a failed diff).
   */
  exitDiff?: string;
  trajectory: Trajectory;
}

function modelFailure(r: Extract<ModelResult, { ok: false }>): LimitHit {
  const status: ExitStatus =
    r.kind === "context_exceeded" ? "ContextExceeded" : r.kind === "aborted" ? "Interrupted" : "ModelError";
  if (status !== "ModelError") return { status, message: r.message };
  return {
    status,
    message: r.message,
    modelError: { kind: r.kind, ...(r.status ? { status: r.status } : {}) },
  };
}

/** The submission in a bash result: output whose first line is the marker, with exit status 0. */
function submissionOf(action: Action, output: string, returncode: number): string | null {
  const isBash = action.kind === "command" || action.name === "bash";
  const newline = output.indexOf("\n");
  const first = newline < 0 ? output : output.slice(0, newline);
  return isBash && returncode === 0 && first === SUBMIT_MARKER
    ? newline < 0
      ? ""
      : output.slice(newline + 1)
    : null;
}

const INTERRUPTED: LimitHit = { status: "Interrupted", message: "interrupted" };

/**
 * One task from start to end: `run` renders the first messages, then repeats `step` (check the
 * limits, `query` the model, parse the reply, `execute` its actions) until something sets the exit,
 * and `finish`es (the diff on exit, the final save). Every message goes through `add`, which
 * records it and reports it.
 */
class AgentRun {
  private readonly rec: TrajectoryRecorder;
  private readonly protocol: Protocol;
  private readonly templates: AgentTemplates;
  private readonly limits: StopCondition[];
  /** The one limit that can be reached between the actions of a reply (no model call happens there). */
  private readonly timeLimit: StopCondition;
  private readonly started = Date.now();
  private lastPromptTokens = 0;
  /** What is sent of the history (agent.history), and how the last request was laid out. */
  private readonly history: HistoryPolicy;
  private lastRequest: RequestRecord | null = null;
  private formatErrors = 0;
  private exit: LimitHit | null = null;
  private submission: string | null = null;

  constructor(private readonly o: AgentOptions) {
    const { config, model } = o;
    this.rec = new TrajectoryRecorder(
      o.trajectoryPath,
      {
        config: redactSecrets(config),
        versions: versions(),
        timing: { started_at: new Date(this.started).toISOString(), ended_at: null, wall_seconds: 0 },
        instance_id: o.instanceId,
        ...(o.attemptNumber !== undefined ? { attempt_number: o.attemptNumber } : {}),
        model_name: model.name,
      },
      { config },
    );
    this.protocol = createProtocol(config, o.runner.specs);
    this.templates = new AgentTemplates(config, o.task, o.instance ?? {}, o.env.cwd, o.localization?.vars);
    if (o.localization) {
      this.rec.info.localization = o.localization.record;
      const rr = o.localization.record.rerank;
      if (rr)
        // Its tokens and cost, not a call: the steps count the loop's calls only.
        Object.assign(
          this.stats,
          addStats(this.stats, {
            api_calls: 0,
            prompt_tokens: rr.prompt_tokens,
            completion_tokens: rr.completion_tokens,
            cost: rr.cost,
          }),
        );
    }
    this.limits = limitsFor(config.agent);
    this.timeLimit = timeLimit(config.agent.time_limit);
    this.history = createHistoryPolicy(config.agent.history, config.agent.context_limit);
  }

  private get stats() {
    return this.rec.info.model_stats;
  }

  private vars(): Record<string, unknown> {
    return this.templates.vars(this.stats.api_calls, this.stats.cost, (Date.now() - this.started) / 1000);
  }

  private add(message: ChatMessage, step: number): void {
    this.rec.add(message);
    this.o.onEvent?.({ type: "message", message, step });
  }

  async run(): Promise<AgentResult> {
    let base: string | null = null;
    try {
      base = this.o.baseCommit ?? (await headCommit(this.o.env));
      await this.startUp();
      while (!this.exit) await this.step();
    } catch (err) {
      this.exit = {
        status: this.o.signal?.aborted ? "Interrupted" : "EnvironmentError",
        message: (err as Error).message,
      };
    } finally {
      await this.o.runner.close().catch(() => {});
    }
    return this.finish(base);
  }

  /** The startup command, then the system and first user messages. */
  private async startUp(): Promise<void> {
    const { config, env } = this.o;
    if (config.run.env_startup_command) {
      const r = await env.exec(config.run.env_startup_command, { timeout: config.environment.timeout });
      if (r.returncode !== 0)
        throw new Error(`run.env_startup_command failed (exit ${r.returncode}): ${r.output.slice(-2000)}`);
    }
    const at = { timestamp: new Date().toISOString() };
    this.add({ role: "system", content: this.templates.system(this.vars()), extra: at }, 0);
    this.add({ role: "user", content: this.templates.instance(this.vars()), extra: at }, 0);
    await this.rec.save();
  }

  private progress(): Progress {
    return {
      steps: this.stats.api_calls,
      cost: this.stats.cost,
      elapsedSeconds: (Date.now() - this.started) / 1000,
      lastPromptTokens: this.lastPromptTokens,
    };
  }

  /**
   * The first stop condition reached (limits, interruption), after asking `onLimit`; null to go on.
   * Before a model call every limit is checked; between the actions of one reply (`between`) only
   * the time limit and an interruption: steps, cost and context count model calls, and none is made
   * there (the reply that reached the step limit still runs its actions).
   */
  private async stopReason(between = false): Promise<LimitHit | null> {
    if (this.o.signal?.aborted) return INTERRUPTED;
    const progress = this.progress();
    for (const limit of between ? [this.timeLimit] : this.limits) {
      const hit = limit(progress);
      if (hit && !(await this.o.hooks?.onLimit?.(hit, progress))) return hit;
    }
    return null;
  }

  /** One model call and what follows from its reply. */
  private async step(): Promise<void> {
    this.exit = await this.stopReason();
    if (this.exit) return;
    const res = await this.query();
    if (!res) return;
    const step = this.stats.api_calls;
    const reply = replyMessage(res, step);
    if (this.lastRequest) recordRequest(reply, this.lastRequest);
    const dropped = capToolCalls(reply, this.o.config.agent.max_actions_per_reply);
    const parsed =
      res.finishReason === "length" ? this.templates.cutOff(reply, this.vars()) : this.protocol.parse(reply);
    if (parsed.ok) {
      reply.extra = {
        ...reply.extra,
        actions: parsed.actions.map((a) =>
          a.kind === "tool" ? { tool: a.name, args: a.args } : { command: a.command },
        ),
      };
    }
    this.add(reply, step);
    this.o.onEvent?.({
      type: "reply",
      step,
      message: reply,
      thought: parsed.ok ? parsed.thought : textOf(reply).trim(),
      actions: parsed.ok ? parsed.actions : null,
    });
    if (!parsed.ok) {
      this.formatErrors++;
      const vars = this.vars();
      const answer = rejectionMessages(parsed, reply, res.finishReason, this.templates, vars, step);
      for (const m of answer) this.add(m, step);
      this.o.onEvent?.({
        type: "rejected",
        step,
        text: textOf(answer[answer.length - 1]),
        cutOff: res.finishReason === "length",
      });
      if (this.formatErrors >= this.o.config.agent.max_format_errors)
        this.exit = {
          status: "RepeatedFormatError",
          message: `${this.formatErrors} replies in a row could not be parsed; last: ${parsed.error}`,
        };
    } else {
      this.formatErrors = 0;
      for (const [i, action] of parsed.actions.entries()) {
        if (this.o.signal?.aborted) this.exit = INTERRUPTED;
        else if (i > 0 && !this.exit) this.exit = await this.stopReason(true);
        if (this.exit) break;
        await this.execute(action, step);
      }
    }
    if (dropped > 0)
      this.add(droppedActionsMessage(dropped, this.o.config.agent.max_actions_per_reply, step), step);
    await this.rec.save();
  }

  /** Asks the model for the next reply; a failure sets the exit and returns null. */
  private async query(): Promise<Extract<ModelResult, { ok: true }> | null> {
    const step = this.stats.api_calls + 1;
    const view = this.history.view(this.rec.messages, { step, lastPromptTokens: this.lastPromptTokens });
    const res = await this.o.model.query({
      messages: view.messages,
      tools: this.protocol.toolSpecs,
      signal: this.o.signal,
      constraint: this.protocol.constraint,
      onRetry: (n) =>
        this.o.onEvent?.({
          type: "model_retry",
          step,
          tryNumber: n.tryNumber,
          maxTries: n.maxTries,
          waitSeconds: n.waitMs / 1000,
          reason: n.reason,
        }),
    });
    if (!res.ok) {
      this.exit = modelFailure(res);
      return null;
    }
    Object.assign(this.stats, addCall(this.stats, res.usage, res.cost));
    this.lastRequest = requestRecord(this.history.name, view, res.usage, this.lastPromptTokens);
    this.lastPromptTokens = res.usage.prompt_tokens;
    this.o.onEvent?.({
      type: "model_call",
      step: this.stats.api_calls,
      usage: res.usage,
      cost: res.cost,
      tries: res.tries,
    });
    return res;
  }

  /** Runs one action (unless a hook declines it) and adds its observation; a submission sets the exit. */
  private async execute(asked: Action, step: number): Promise<void> {
    const { config, env, model, runner, hooks } = this.o;
    const decision = hooks?.beforeAction
      ? await hooks.beforeAction(asked, step)
      : { run: true as const, action: asked };
    const action = decision.run ? decision.action : asked;
    if (decision.run) this.o.onEvent?.({ type: "action", step, action });
    const t0 = Date.now();
    const result: ToolResult = decision.run
      ? await runner.run(action, {
          env,
          timeout: config.environment.timeout,
          vision: model.vision,
          signal: this.o.signal,
        })
      : { output: decision.message, returncode: 1 };
    const durationMs = Date.now() - t0;
    if (decision.run) await hooks?.afterAction?.(action, result, step);
    const observed = observationMessages(
      action,
      result,
      {
        template: this.templates.observation,
        vars: this.vars(),
        // tools clip at output_limit with their own note; this is a safety net for any longer text
        outputLimit: config.agent.output_limit + 1000,
        timeout: config.environment.timeout,
        step,
      },
      durationMs,
    );
    for (const m of observed) this.add(m, step);
    this.o.onEvent?.({
      type: "observation",
      step,
      action,
      result: {
        returncode: result.returncode,
        timedOut: result.timedOut === true,
        interrupted: result.interrupted === true,
        ran: decision.run,
        durationMs,
      },
      text: textOf(observed[0]),
    });
    if (!decision.run) return;
    this.submission = submissionOf(action, result.fullOutput ?? result.output, result.returncode);
    if (this.submission !== null)
      this.exit = { status: "Submitted", message: "the agent submitted its work" };
  }

  /** The patch when none was submitted, the exit status, the final save. */
  private async finish(base: string | null): Promise<AgentResult> {
    const { config, env } = this.o;
    let exitDiff: string | undefined;
    if (this.submission === null && config.agent.diff_on_exit && base) {
      this.submission = await workTreeDiff(env, base).then(
        (diff) => {
          exitDiff = diff;
          return diff;
        },
        (err: Error) => {
          this.exit = this.exit
            ? {
                ...this.exit,
                message: `${this.exit.message}; the work tree's diff could not be taken: ${err.message}`,
              }
            : { status: "EnvironmentError", message: err.message };
          return "";
        },
      );
    }
    const final = this.exit ?? {
      status: "EnvironmentError" as const,
      message: "the loop ended without an exit status",
    };
    const info = this.rec.info;
    info.exit_status = final.status;
    info.exit_message = final.message;
    if (final.modelError) info.model_error = final.modelError;
    // what can only harm a patch (binary sections without content, new build artifacts) is left
    // out whatever command produced it, and recorded
    const cleaned = cleanPatch(this.submission ?? "");
    if (cleaned.dropped.length > 0) info.submission_dropped = cleaned.dropped;
    this.rec.setSubmission(cleaned.patch);
    info.timing.ended_at = new Date().toISOString();
    await this.rec.save();
    this.o.onEvent?.({ type: "exit", status: final.status, message: final.message });
    return {
      exitStatus: final.status,
      exitMessage: final.message,
      submission: info.submission,
      baseCommit: base,
      ...(exitDiff !== undefined ? { exitDiff } : {}),
      trajectory: this.rec.trajectory,
    };
  }
}

/**
 * Runs one task: query → parse → execute → observe until an exit. Task failures become exit
 * statuses; it rejects only when the trajectory file cannot be written at the end.
 */
export function runAgent(o: AgentOptions): Promise<AgentResult> {
  return new AgentRun(o).run();
}
