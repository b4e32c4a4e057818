import type { Config } from "../config/schema.js";
import { StrictTemplate } from "../config/template.js";
import { baseContext, stepVars } from "../config/template-vars.js";
import type { LocalizationVars } from "../localize/types.js";
import type { ChatMessage } from "../models/types.js";
import type { ParseResult } from "./protocols/types.js";

/** The config's templates, compiled once per task, with the variables each one receives. */
export class AgentTemplates {
  private readonly systemT: StrictTemplate;
  private readonly instanceT: StrictTemplate;
  private readonly formatErrorT: StrictTemplate;
  private readonly lengthT: StrictTemplate;
  readonly observation: StrictTemplate;

  constructor(
    private readonly config: Config,
    private readonly task: string,
    private readonly row: Record<string, unknown>,
    private readonly cwd: string,
    private readonly localization?: LocalizationVars,
  ) {
    this.systemT = new StrictTemplate(config.agent.system_template, "agent.system_template");
    this.instanceT = new StrictTemplate(config.agent.instance_template, "agent.instance_template");
    this.lengthT = new StrictTemplate(config.agent.length_template, "agent.length_template");
    this.observation = new StrictTemplate(config.model.observation_template, "model.observation_template");
    this.formatErrorT = new StrictTemplate(config.model.format_error_template, "model.format_error_template");
  }

  vars(step: number, cost: number, elapsed: number): Record<string, unknown> {
    return baseContext(
      this.config,
      this.task,
      this.row,
      this.cwd,
      stepVars(this.config, step, cost, elapsed),
      this.localization,
    );
  }

  system(vars: Record<string, unknown>): string {
    return this.systemT.render(vars);
  }

  /** The first user message. */
  instance(vars: Record<string, unknown>): string {
    return this.instanceT.render(vars);
  }

  /** The format-error message; `actions` are the commands found (a reply with two blocks has two). */
  formatError(
    error: string,
    reply: ChatMessage,
    finishReason: string | null,
    vars: Record<string, unknown>,
    actions: string[] = [],
  ): string {
    return this.formatErrorT.render({
      ...vars,
      error,
      actions,
      finish_reason: finishReason ?? "",
      has_tool_calls: (reply.tool_calls?.length ?? 0) > 0,
    });
  }

  /** A reply cut off by the token limit: nothing runs, every tool call id gets a reply. */
  cutOff(reply: ChatMessage, vars: Record<string, unknown>): Extract<ParseResult, { ok: false }> {
    const error = this.lengthT.render({ ...vars, finish_reason: "length" });
    const toolReplies = (reply.tool_calls ?? []).map((c) => ({
      id: c.id,
      text: "Not run: your reply was cut off by the output token limit.",
    }));
    return { ok: false, error, toolReplies: toolReplies.length > 0 ? toolReplies : undefined };
  }
}
