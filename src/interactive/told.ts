import type { Config } from "../config/schema.js";
import { StrictTemplate } from "../config/template.js";

/** What the model is told of the person's decisions (config `run.interactive`, configs/base.yaml). */
export interface Told {
  rejected(message: string): string;
  takeOver: string;
  ended: string;
  edited(command: string): string;
  stopped: string;
  message(text: string): string;
}

/**
 * The `run.interactive` templates, compiled and rendered once with sample values, so a syntax error
 * or an unknown variable is a config error before the run starts (TemplateError).
 */
export function toldFrom(config: Config["run"]["interactive"]): Told {
  const t = (key: keyof typeof config) => new StrictTemplate(config[key], `run.interactive.${key}`);
  const rejected = t("rejected_template");
  const edited = t("edited_template");
  const message = t("message_template");
  const told: Told = {
    rejected: (m) => rejected.render({ message: m }),
    takeOver: t("take_over_template").render({}),
    ended: t("ended_template").render({}),
    edited: (c) => edited.render({ command: c }),
    stopped: t("stopped_template").render({}),
    message: (m) => message.render({ message: m }),
  };
  told.rejected("x");
  told.edited("x");
  told.message("x");
  return told;
}
