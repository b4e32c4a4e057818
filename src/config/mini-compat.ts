import type { Plain } from "./merge.js";
import { isPlain, originOf } from "./merge.js";

/**
 * Keys that mini-swe-agent v2 configs use but patchloop does not act on. They load (so such files
 * work unchanged) with a loud warning naming each one; they are removed before validation.
 */
export const IGNORED_MINI_KEYS: Record<string, string> = {
  "agent.agent_class": "patchloop has one agent loop",
  "agent.mode": "patchloop runs without interactive confirmation",
  "agent.whitelist_actions": "patchloop runs without interactive confirmation",
  "agent.confirm_exit": "patchloop runs without interactive confirmation",
  "agent.output_path": "use -o on the command line",
  "model.model_class":
    "set agent.protocol (tool_calls or backticks) and the provider prefix of model.model_name",
  "model.litellm_model_registry": "prices are set with model.price",
  "model.litellm_model_name_override": "set model.model_name",
  "model.set_cache_control": "prompt caching is not managed by patchloop",
  "model.multimodal_regex": "images are sent by the editor's view command when model.vision is true",
  "model.model_kwargs.drop_params":
    "a litellm option; patchloop sends model_kwargs unchanged and never sends this one",
  "environment.interpreter": "commands always run with bash -c",
  "environment.remove_container": "containers are always removed",
};

/** Keys mini-swe-agent v1 had in another section; they are errors with a pointer to the new place. */
export const MOVED_KEYS: Record<string, string> = {
  "agent.action_observation_template": "model.observation_template",
  "agent.observation_template": "model.observation_template",
  "agent.format_error_template": "model.format_error_template",
  "agent.timeout_template":
    "model.observation_template (it receives output.timed_out and output.exception_info)",
  "agent.action_regex": "model.action_regex",
  "model.step_limit": "agent.step_limit",
  "model.cost_limit": "agent.cost_limit",
  "model.system_template": "agent.system_template",
  "model.instance_template": "agent.instance_template",
};

/** Removes the ignored keys from `config` in place and returns one warning per key present. */
export function stripIgnoredMiniKeys(config: Plain, origin: Map<string, string>): string[] {
  const warnings: string[] = [];
  for (const [path, why] of Object.entries(IGNORED_MINI_KEYS)) {
    const parts = path.split(".");
    let node: unknown = config;
    for (const p of parts.slice(0, -1)) node = isPlain(node) ? node[p] : undefined;
    const last = parts[parts.length - 1];
    if (isPlain(node) && last in node) {
      if (path === "environment.interpreter" && isBashC(node[last])) {
        delete node[last];
        continue;
      }
      delete node[last];
      const from = originOf(path, origin) ?? "config";
      warnings.push(
        `config key ${path} (from ${from}) is a mini-swe-agent key that patchloop ignores: ${why}`,
      );
    }
  }
  return warnings;
}

function isBashC(value: unknown): boolean {
  return Array.isArray(value) && value.length === 2 && value[0] === "bash" && value[1] === "-c";
}
