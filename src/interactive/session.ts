import pc from "picocolors";
import type { ActionRunner } from "../agent/action-runner.js";
import type { ActionDecision, AgentHooks } from "../agent/agent.js";
import type { LimitHit, Progress } from "../agent/limits.js";
import type { Action, Protocol } from "../agent/protocols/types.js";
import type { Config } from "../config/schema.js";
import type { Environment } from "../environments/types.js";
import type { Model, ModelRequest, ModelResult } from "../models/types.js";
import type { ToolContext, ToolResult } from "../tools/base/types.js";
import { neutralize } from "../util/terminal-text.js";
import { commandOf, renderAction, withCommand } from "./action-view.js";
import type { Keyboard } from "./keyboard.js";
import { type Mode, modeNote } from "./modes.js";
import { personMessage, personResult } from "./person-reply.js";
import { type Ask, EndRun } from "./prompts.js";
import type { Told } from "./told.js";

export interface SessionOptions {
  mode: Mode;
  config: Config;
  protocol: Protocol;
  env: Environment;
  ask: Ask;
  keyboard: Keyboard;
  /** The run's controller: aborting it ends the run as Interrupted. */
  run: AbortController;
  write: (s: string) => void;
  color: boolean;
  /** The config's secret scrubber, applied to everything shown. */
  scrub: (s: string) => string;
  /** What the model is told of the person's decisions (toldFrom, config `run.interactive`). */
  told: Told;
}

const aborted = (message: string): ModelResult => ({ ok: false, kind: "aborted", message, tries: 0 });

/** The exit message of a run the person ended from a prompt. */
const ENDED = "the person at the keyboard ended the run";

/** The bash tool's note for a command the abort signal stopped, told as the person's Ctrl-C instead. */
function personStopped(output: string, stopped: string): string {
  const note =
    /\[The command was [a-z]+ because the agent is stopping; the output above is what it printed until then\.\]/;
  if (note.test(output)) return output.replace(note, stopped);
  const reset = "The agent is stopping, and the command did not stop";
  if (output.includes(reset))
    return output.replace(
      reset,
      "The person at the keyboard stopped the command (Ctrl-C), and it did not stop",
    );
  return `${output.replace(/\n*$/, "\n")}${stopped}`;
}

type Limit = "steps" | "cost" | "time";

/**
 * An interactive run on a terminal (docs/interactive.md): the agent loop's hooks (confirm each
 * action, ask before a limit ends the run), the model wrapped for human mode and for Ctrl-C during
 * a model call, and the action runner wrapped for Ctrl-C during a command.
 */
export class InteractiveSession {
  mode: Mode;
  private readonly c: ReturnType<typeof pc.createColors>;
  private readonly told: Told;
  /** The person's own command (human mode) on its way from the model wrapper to the action hook. */
  private personCommand: string | null = null;
  private personTurns = 0;
  /** Actions the person edited, with the command text the model is told about. */
  private readonly edited = new WeakMap<Action, string>();
  /** What the person allowed beyond the config's limits (steps, USD, seconds); starts at the config's. */
  private readonly allowed: Record<Limit, number>;

  constructor(private readonly o: SessionOptions) {
    this.mode = o.mode;
    this.c = pc.createColors(o.color);
    this.told = o.told;
    const a = o.config.agent;
    this.allowed = { steps: a.step_limit, cost: a.cost_limit, time: a.time_limit };
  }

  /** Steps left after `step` under the limit as the person has raised it; null without a step limit. */
  stepsLeft(step: number): number | null {
    return this.allowed.steps > 0 ? Math.max(0, this.allowed.steps - step) : null;
  }

  private say(line: string): void {
    this.o.write(`${this.c.yellow(this.o.scrub(line))}\n`);
  }

  private setMode(mode: Mode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    this.say(modeNote(mode));
  }

  /** Ends the run from a prompt (Ctrl-C there, or the choice): the loop stops as Interrupted. */
  private end(): void {
    if (!this.o.run.signal.aborted) this.say("ending the run (Interrupted); the patch is kept");
    this.o.run.abort();
  }

  private async asking<T>(question: () => Promise<T>): Promise<T | EndRun> {
    try {
      const answer = await question();
      this.o.keyboard.settled();
      return answer;
    } catch (err) {
      if (err instanceof EndRun) {
        this.end();
        return err;
      }
      throw err;
    }
  }

  hooks(): AgentHooks {
    return {
      beforeAction: (action) => this.beforeAction(action),
      onLimit: (hit, progress) => this.onLimit(hit, progress),
    };
  }

  private async beforeAction(action: Action): Promise<ActionDecision> {
    const own = this.personCommand;
    this.personCommand = null;
    if (own !== null && commandOf(action) === own) return { run: true, action };
    this.o.write(`${this.o.scrub(await renderAction(action, this.o.env, this.o.color))}\n`);
    if (this.o.keyboard.takePending() && this.mode === "yolo") this.setMode("confirm");
    if (this.mode === "yolo") return { run: true, action };
    for (;;) {
      const choice = await this.asking(() =>
        this.o.ask.choose("Run this action?", [
          { value: "run", name: "Run it" },
          { value: "reject", name: "Reject it and tell the model why" },
          { value: "edit", name: "Edit it, then run it" },
          { value: "yolo", name: "Run it, and run the next actions without asking (yolo mode)" },
          { value: "human", name: "Don't run it: type the commands yourself (human mode)" },
        ]),
      );
      if (choice instanceof EndRun) return { run: false, message: this.told.ended };
      if (choice === "run") return { run: true, action };
      if (choice === "yolo") {
        this.setMode("yolo");
        return { run: true, action };
      }
      if (choice === "human") {
        this.setMode("human");
        return { run: false, message: this.told.takeOver };
      }
      if (choice === "reject") {
        const why = await this.asking(() => this.o.ask.line("Your message to the model:"));
        if (why instanceof EndRun) return { run: false, message: this.told.ended };
        return { run: false, message: this.told.rejected(why) };
      }
      const changed = await this.edit(action);
      if (changed instanceof EndRun) return { run: false, message: this.told.ended };
      if (changed === null) {
        this.say("unchanged");
        continue;
      }
      this.o.write(
        `${this.o.scrub(await renderAction(changed.action, this.o.env, this.o.color)).replace("ACTION", "ACTION (edited)")}\n`,
      );
      this.edited.set(changed.action, changed.text);
      return { run: true, action: changed.action };
    }
  }

  /** The edited action, or null when the person left it as it was. */
  private async edit(action: Action): Promise<{ action: Action; text: string } | null | EndRun> {
    const command = commandOf(action);
    if (command !== null) {
      // A one-line prompt would draw the command on the terminal as it is: one with several lines,
      // or with control characters the terminal would obey, is edited in the person's editor.
      const text = await this.asking(() =>
        command.includes("\n") || neutralize(command) !== command
          ? this.o.ask.editor(command, ".sh")
          : this.o.ask.line("Edit the command:", { prefill: command }),
      );
      if (text instanceof EndRun) return text;
      return text === command || text.trim() === "" ? null : { action: withCommand(action, text), text };
    }
    if (action.kind !== "tool") return null;
    const before = `${JSON.stringify(action.args, null, 2)}\n`;
    const text = await this.asking(() => this.o.ask.editor(before, ".json"));
    if (text instanceof EndRun) return text;
    if (text.trim() === before.trim()) return null;
    try {
      const args = JSON.parse(text) as unknown;
      if (typeof args !== "object" || args === null || Array.isArray(args)) throw new Error("not an object");
      return { action: { ...action, args: args as Record<string, unknown> }, text: JSON.stringify(args) };
    } catch (err) {
      this.say(
        `the edited arguments are not a JSON object (${(err as Error).message}); the action is unchanged`,
      );
      return null;
    }
  }

  private async onLimit(hit: LimitHit, progress: Progress): Promise<boolean> {
    const { config } = this.o;
    const kind = hit.limit;
    if (kind === undefined || kind === "context" || this.o.run.signal.aborted) return false;
    const now = { steps: progress.steps, cost: progress.cost, time: progress.elapsedSeconds }[kind];
    if (now < this.allowed[kind]) return true;
    const unit = { steps: "steps", cost: "US dollars", time: "minutes" }[kind];
    const suggestion = { steps: "10", cost: String(config.agent.cost_limit || 1), time: "10" }[kind];
    for (;;) {
      const answer = await this.asking(() =>
        this.o.ask.line(`${hit.message}. Go on for how many more ${unit}? (0 ends the run)`, {
          prefill: suggestion,
        }),
      );
      if (answer instanceof EndRun) return false;
      const more = Number(answer.trim());
      if (!Number.isFinite(more) || more < 0 || (kind === "steps" && !Number.isInteger(more))) {
        this.say(`${JSON.stringify(answer)} is not a number of ${unit}; type one, or 0 to end the run`);
        continue;
      }
      if (more === 0) return false;
      this.allowed[kind] = now + (kind === "time" ? more * 60 : more);
      return true;
    }
  }

  /** The model, as the loop sees it: the person's turn in human mode, Ctrl-C during a call. */
  wrapModel(model: Model): Model {
    return {
      name: model.name,
      vision: model.vision,
      query: (request) => this.query(model, request),
    };
  }

  private async query(model: Model, request: ModelRequest): Promise<ModelResult> {
    for (;;) {
      if (this.o.run.signal.aborted) return aborted("interrupted");
      if (this.o.keyboard.takePending() && !(await this.afterStoppedCall("paused"))) return aborted(ENDED);
      if (this.mode === "human") {
        const turn = await this.personTurn();
        if (turn) return turn;
        continue;
      }
      const { value, interrupted } = await this.o.keyboard.call((signal) =>
        model.query({ ...request, signal }),
      );
      if (!interrupted) return value;
      if (!(await this.afterStoppedCall("model"))) return aborted(ENDED);
    }
  }

  /** The prompt after Ctrl-C stopped a model call (or paused between steps). False: end the run. */
  private async afterStoppedCall(what: "model" | "paused"): Promise<boolean> {
    const choice = await this.asking(() =>
      this.o.ask.choose(
        what === "model"
          ? "The model call was stopped. What now?"
          : "Paused before the next model call. What now?",
        [
          { value: "confirm" as const, name: "Ask the model again, and confirm each action" },
          { value: "yolo" as const, name: "Ask the model again, and run its actions without asking (yolo)" },
          { value: "human" as const, name: "Type a command yourself (human mode)" },
          { value: "end" as const, name: "End the run (Interrupted; the patch is kept)" },
        ],
        this.mode === "human" ? "human" : "confirm",
      ),
    );
    if (choice instanceof EndRun) return false;
    if (choice === "end") {
      this.end();
      return false;
    }
    this.setMode(choice);
    return true;
  }

  /** Human mode: the person's command as the model's reply; null when they hand back to the model. */
  private async personTurn(): Promise<ModelResult | null> {
    const typed = await this.asking(() =>
      this.o.ask.line("Your command (/confirm or /yolo hands the work back to the model):"),
    );
    if (typed instanceof EndRun) return aborted(ENDED);
    const command = typed.trim();
    if (command === "/confirm" || command === "/c" || command === "/yolo" || command === "/y") {
      this.setMode(command.startsWith("/c") ? "confirm" : "yolo");
      return null;
    }
    const message = personMessage(this.o.protocol, this.o.config.agent.action_tag, typed, ++this.personTurns);
    if (message === null) {
      this.say(
        "human mode does not work with this config's action format (model.action_regex); back to confirm",
      );
      this.setMode("confirm");
      return null;
    }
    this.personCommand = typed;
    return personResult(message, typed);
  }

  /** The action runner, as the loop sees it: edited actions say so, and Ctrl-C stops only the command. */
  wrapRunner(runner: ActionRunner): ActionRunner {
    return {
      specs: runner.specs,
      close: () => runner.close(),
      run: (action, ctx) => this.runAction(runner, action, ctx),
    };
  }

  private async runAction(runner: ActionRunner, action: Action, ctx: ToolContext): Promise<ToolResult> {
    const { value, interrupted } = await this.o.keyboard.call(
      (signal) => runner.run(action, { ...ctx, signal }),
      "command",
    );
    const note = this.edited.get(action);
    // the submission is read from fullOutput (its first line): the note goes into what the model reads only
    let result =
      note === undefined
        ? value
        : {
            ...value,
            fullOutput: value.fullOutput ?? value.output,
            output: `${this.told.edited(note)}\n${value.output}`,
          };
    if (!interrupted) return result;
    result = {
      ...result,
      fullOutput: result.fullOutput ?? result.output,
      interrupted: false,
      output: personStopped(result.output, this.told.stopped),
    };
    const choice = await this.asking(() =>
      this.o.ask.choose("The command was stopped. What now?", [
        { value: "send", name: "Give the model what it printed so far" },
        { value: "message", name: "Give the model that, with a message from you" },
        { value: "end", name: "End the run (Interrupted; the patch is kept)" },
      ]),
    );
    if (choice instanceof EndRun || choice === "end") {
      this.end();
      return result;
    }
    if (choice === "message") {
      const text = await this.asking(() => this.o.ask.line("Your message to the model:"));
      if (text instanceof EndRun) return result;
      result = { ...result, output: `${result.output}\n${this.told.message(text)}` };
    }
    if (this.mode === "yolo") this.setMode("confirm");
    return result;
  }
}
