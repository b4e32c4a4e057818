import { redactSecrets } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import { SUBMIT_MARKER } from "../config/template-vars.js";
import type { Environment } from "../environments/types.js";
import type { ChatMessage, Model, ModelResult } from "../models/types.js";
import type { ActionRunner } from "./action-runner.js";
import { type LimitHit, limitsFor } from "./limits.js";
import { observationMessages } from "./observe.js";
import { createProtocol } from "./protocols/create.js";
import type { Action } from "./protocols/types.js";
import { rejectionMessages, replyMessage } from "./step-messages.js";
import { AgentTemplates } from "./templates.js";
import { TrajectoryRecorder } from "./trajectory.js";
import type { ExitStatus, Trajectory } from "./trajectory-types.js";
import { versions } from "./versions.js";
import { headCommit, workTreeDiff } from "./work-tree-diff.js";

/** What the loop reports as it goes (the CLI prints these; batch runs count them). */
export type AgentEvent =
  | { type: "message"; message: ChatMessage; step: number }
  | { type: "exit"; status: ExitStatus; message: string };

export interface AgentOptions {
  config: Config;
  model: Model;
  env: Environment;
  runner: ActionRunner;
  task: string;
  /** Dataset row fields for the templates (`instance.*`). */
  instance?: Record<string, unknown>;
  instanceId?: string;
  /** Where to save the trajectory after every step; none: kept in memory only. */
  trajectoryPath?: string;
  onEvent?: (event: AgentEvent) => void;
  /** Aborting ends the task as Interrupted (the running command and model call are stopped). */
  signal?: AbortSignal;
  /**
   * The commit the work tree starts at, when the caller made the checkout (the diff on exit is
   * taken against it); otherwise it is read from the environment with `git rev-parse HEAD`.
   */
  baseCommit?: string;
}

export interface AgentResult {
  exitStatus: ExitStatus;
  exitMessage: string;
  /** The patch: what was submitted, or the work tree's diff (when diff_on_exit). */
  submission: string;
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

/** Runs one task: query → parse → execute → observe until an exit. Never throws for task failures. */
export async function runAgent(o: AgentOptions): Promise<AgentResult> {
  const { config, model, env, runner } = o;
  const started = Date.now();
  const rec = new TrajectoryRecorder(
    o.trajectoryPath,
    {
      config: redactSecrets(config),
      versions: versions(),
      timing: { started_at: new Date(started).toISOString(), ended_at: null, wall_seconds: 0 },
      instance_id: o.instanceId,
      model_name: model.name,
    },
    { config },
  );
  const stats = rec.info.model_stats;
  const protocol = createProtocol(config, runner.specs);
  const templates = new AgentTemplates(config, o.task, o.instance ?? {}, env.cwd);
  const limits = limitsFor(config.agent);
  const add = (message: ChatMessage, step: number) => {
    rec.add(message);
    o.onEvent?.({ type: "message", message, step });
  };
  let lastPromptTokens = 0;
  let formatErrors = 0;
  let exit: LimitHit | null = null;
  let submission: string | null = null;
  let base: string | null = null;
  const vars = () => templates.vars(stats.api_calls, stats.cost, (Date.now() - started) / 1000);
  const ctx = { env, timeout: config.environment.timeout, vision: model.vision, signal: o.signal };

  try {
    base = o.baseCommit ?? (await headCommit(env));
    if (config.run.env_startup_command) {
      const r = await env.exec(config.run.env_startup_command, { timeout: config.environment.timeout });
      if (r.returncode !== 0)
        throw new Error(`run.env_startup_command failed (exit ${r.returncode}): ${r.output.slice(-2000)}`);
    }
    const at = { timestamp: new Date().toISOString() };
    add({ role: "system", content: templates.system(vars()), extra: at }, 0);
    add({ role: "user", content: templates.instance(vars()), extra: at }, 0);
    await rec.save();

    while (!exit) {
      const progress = {
        steps: stats.api_calls,
        cost: stats.cost,
        elapsedSeconds: (Date.now() - started) / 1000,
        lastPromptTokens,
      };
      exit = o.signal?.aborted
        ? { status: "Interrupted", message: "interrupted" }
        : (limits.map((l) => l(progress)).find((h) => h) ?? null);
      if (exit) break;

      const res = await model.query({
        messages: rec.messages.map(({ extra: _, ...m }) => m),
        tools: protocol.toolSpecs,
        signal: o.signal,
      });
      if (!res.ok) {
        exit = modelFailure(res);
        break;
      }
      stats.api_calls++;
      stats.prompt_tokens += res.usage.promptTokens;
      stats.completion_tokens += res.usage.completionTokens;
      stats.cost += res.cost;
      lastPromptTokens = res.usage.promptTokens;
      const step = stats.api_calls;
      const reply = replyMessage(res, step);
      const parsed = res.finishReason === "length" ? templates.cutOff(reply, vars()) : protocol.parse(reply);
      if (parsed.ok) {
        reply.extra = {
          ...reply.extra,
          actions: parsed.actions.map((a) =>
            a.kind === "tool" ? { tool: a.name, args: a.args } : { command: a.command },
          ),
        };
      }
      add(reply, step);
      if (!parsed.ok) {
        formatErrors++;
        for (const m of rejectionMessages(parsed, reply, res.finishReason, templates, vars(), step))
          add(m, step);
        if (formatErrors >= config.agent.max_format_errors)
          exit = {
            status: "RepeatedFormatError",
            message: `${formatErrors} replies in a row could not be parsed; last: ${parsed.error}`,
          };
        await rec.save();
        continue;
      }
      formatErrors = 0;

      for (const action of parsed.actions) {
        if (o.signal?.aborted) {
          exit = { status: "Interrupted", message: "interrupted" };
          break;
        }
        const t0 = Date.now();
        const result = await runner.run(action, ctx);
        const observed = observationMessages(
          action,
          result,
          {
            template: templates.observation,
            vars: vars(),
            // tools clip at output_limit with their own note; this is a safety net for any longer text
            outputLimit: config.agent.output_limit + 1000,
            timeout: config.environment.timeout,
            step,
          },
          Date.now() - t0,
        );
        for (const m of observed) add(m, step);
        submission = submissionOf(action, result.fullOutput ?? result.output, result.returncode);
        if (submission !== null) {
          exit = { status: "Submitted", message: "the agent submitted its work" };
          break;
        }
      }
      await rec.save();
    }
  } catch (err) {
    exit = {
      status: o.signal?.aborted ? "Interrupted" : "EnvironmentError",
      message: (err as Error).message,
    };
  } finally {
    await runner.close().catch(() => {});
  }

  if (submission === null && config.agent.diff_on_exit && base) {
    submission = await workTreeDiff(env, base).catch((err: Error) => {
      exit = exit
        ? { ...exit, message: `${exit.message}; the work tree's diff could not be taken: ${err.message}` }
        : { status: "EnvironmentError", message: err.message };
      return "";
    });
  }
  const final = exit ?? {
    status: "EnvironmentError" as const,
    message: "the loop ended without an exit status",
  };
  rec.info.exit_status = final.status;
  rec.info.exit_message = final.message;
  if (final.modelError) rec.info.model_error = final.modelError;
  rec.info.submission = submission ?? "";
  rec.info.timing.ended_at = new Date().toISOString();
  await rec.save();
  o.onEvent?.({ type: "exit", status: final.status, message: final.message });
  return {
    exitStatus: final.status,
    exitMessage: final.message,
    submission: rec.info.submission,
    trajectory: rec.trajectory,
  };
}
