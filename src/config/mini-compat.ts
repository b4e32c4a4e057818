import { closest } from "./closest.js";
import type { Plain } from "./merge.js";
import { isPlain, originOf } from "./merge.js";
import { KNOWN_REQUEST_FIELDS } from "./request-fields.js";

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

/**
 * mini-swe-agent's `model.model_class` names (or import paths) and the action protocol each means:
 * the `*_textbased` classes parse one text block per reply (patchloop's backticks protocol, with
 * `model.action_regex` when given), the others use tool calls.
 */
const MODEL_CLASSES: Record<string, "tool_calls" | "backticks"> = {
  litellm: "tool_calls",
  litellm_textbased: "backticks",
  litellm_response: "tool_calls",
  openrouter: "tool_calls",
  openrouter_textbased: "backticks",
  openrouter_response: "tool_calls",
  portkey: "tool_calls",
  portkey_response: "tool_calls",
  requesty: "tool_calls",
};

/** The protocol a mini-swe-agent model class means, or null for one patchloop does not know. */
export function protocolOfModelClass(modelClass: string): "tool_calls" | "backticks" | null {
  const known = MODEL_CLASSES[modelClass];
  if (known) return known;
  const last = modelClass.split(".").pop() ?? "";
  if (/textbased/i.test(last)) return "backticks";
  if (/^(Litellm|OpenRouter|Portkey|Requesty)\w*Model$/i.test(last)) return "tool_calls";
  return null;
}

/** Sources that are patchloop's own defaults (a user's file or -c may override what they set). */
const isDefaultSource = (source: string | undefined): boolean =>
  source === undefined || source === "configs/base.yaml" || source.startsWith("built-in config");

function at(config: Plain, path: string): unknown {
  let node: unknown = config;
  for (const p of path.split(".")) node = isPlain(node) ? node[p] : undefined;
  return node;
}

function setAt(config: Plain, path: string, value: unknown): void {
  const parts = path.split(".");
  let node: Plain = config;
  for (const p of parts.slice(0, -1)) {
    if (!isPlain(node[p])) node[p] = {};
    node = node[p] as Plain;
  }
  node[parts[parts.length - 1]] = value;
}

/**
 * Applies `model.model_class` (mini-swe-agent) and removes it: a text-based class sets
 * agent.protocol to backticks (and agent.tools to the text tools) unless a user's layer set them;
 * a conflicting explicit agent.protocol wins with a warning.
 */
function applyModelClass(config: Plain, origin: Map<string, string>, warnings: string[]): void {
  const model = at(config, "model");
  if (!isPlain(model) || !("model_class" in model)) return;
  const value = model.model_class;
  delete model.model_class;
  const from = originOf("model.model_class", origin) ?? "config";
  const protocol = typeof value === "string" ? protocolOfModelClass(value) : null;
  if (protocol === null) {
    warnings.push(
      `config key model.model_class (from ${from}) is ${JSON.stringify(value)}, a mini-swe-agent model class patchloop does not know; ignored. Known: ${Object.keys(MODEL_CLASSES).join(", ")} (set agent.protocol to tool_calls or backticks instead)`,
    );
    return;
  }
  if (typeof value === "string" && value.endsWith("_response"))
    warnings.push(
      `model.model_class ${value} (from ${from}) uses the Responses API in mini-swe-agent; patchloop sends the same tool calls through chat completions`,
    );
  const protocolFrom = originOf("agent.protocol", origin);
  if (!isDefaultSource(protocolFrom)) {
    if (at(config, "agent.protocol") !== protocol)
      warnings.push(
        `model.model_class ${String(value)} (from ${from}) means agent.protocol=${protocol}, but agent.protocol=${String(at(config, "agent.protocol"))} is set by ${protocolFrom}; that wins`,
      );
    return;
  }
  const by = `model.model_class ${String(value)} (from ${from})`;
  setAt(config, "agent.protocol", protocol);
  origin.set("agent.protocol", by);
  const tools = at(config, "agent.tools");
  if (protocol === "backticks" && isDefaultSource(originOf("agent.tools", origin)) && Array.isArray(tools)) {
    const textTools = tools.filter((t) => t === "bash" || t === "edit_tool");
    setAt(config, "agent.tools", textTools.length > 0 ? textTools : ["bash"]);
    origin.set("agent.tools", by);
  }
}

/** The words a prompt uses for the action format. */
function promptStyle(config: Plain): { text: string; fence: boolean; tag: string } {
  const text = ["agent.system_template", "agent.instance_template"]
    .map((p) => at(config, p))
    .filter((t): t is string => typeof t === "string")
    .join("\n");
  const tag =
    typeof at(config, "agent.action_tag") === "string" ? (at(config, "agent.action_tag") as string) : "";
  const regex = at(config, "model.action_regex");
  const literal = typeof regex === "string" ? (regex.match(/^[^()\\[.*+?]+/)?.[0] ?? "") : "";
  // Templates are read unrendered: `{{ action_tag }}` stands for the tag.
  const tagRef = /\{\{-?\s*action_tag\s*-?\}\}/;
  const fence =
    (tag !== "" && (text.includes(`\`\`\`${tag}`) || text.includes(`<${tag}>`))) ||
    new RegExp(`\`\`\`${tagRef.source}|<${tagRef.source}>`).test(text) ||
    (literal.length >= 3 && text.includes(literal));
  return { text, fence, tag };
}

/**
 * A warning when the prompts ask for one action format and the protocol expects the other: a
 * fenced or tagged block with tool_calls, or no sign of the block with backticks.
 */
function formatMismatch(config: Plain, origin: Map<string, string>): string | null {
  const protocol = at(config, "agent.protocol");
  const { fence, tag } = promptStyle(config);
  const regex = at(config, "model.action_regex");
  const from = originOf("agent.protocol", origin) ?? "config";
  if (protocol === "tool_calls" && fence)
    return `the prompts ask for a text block (\`\`\`${tag} or <${tag}>), but agent.protocol is tool_calls (from ${from}): the model would be told "no tool call". Set agent.protocol=backticks (mini-swe-agent: model.model_class: litellm_textbased), or change the prompts`;
  if (protocol === "backticks" && !fence) {
    const expected =
      typeof regex === "string" ? `a block matching model.action_regex ${regex}` : `a \`\`\`${tag} block`;
    return `agent.protocol is backticks (from ${from}), which expects ${expected}, but neither the system nor the instance template shows one; the model may not know the format`;
  }
  return null;
}

/** Warnings for `model.model_kwargs` keys that no server knows, with the closest known parameter. */
function kwargTypos(config: Plain, origin: Map<string, string>): string[] {
  const kwargs = at(config, "model.model_kwargs");
  if (!isPlain(kwargs)) return [];
  const known = KNOWN_REQUEST_FIELDS;
  return Object.keys(kwargs)
    .filter((k) => !known.includes(k))
    .map((k) => {
      const hint = closest(k, known);
      const from = originOf(`model.model_kwargs.${k}`, origin) ?? "config";
      return `model.model_kwargs.${k} (from ${from}) is not a request field of OpenAI, vLLM, SGLang, llama.cpp, Ollama or Anthropic${hint ? `: did you mean ${hint}?` : ""}; it is sent as it is and the server may ignore it`;
    });
}

/**
 * A mini-swe-agent style `model.action_regex` as a JavaScript regex (global, dot matches newlines,
 * as mini-swe-agent's re.findall with DOTALL). Python's `(?P<name>...)`, `(?P=name)` and leading
 * inline flags `(?s)`, `(?i)`, `(?m)` are translated. Throws SyntaxError when it does not compile.
 */
export function compileActionRegex(source: string): RegExp {
  let body = source;
  let flags = "gs";
  const inline = /^\(\?([aimsux]+)\)/.exec(body);
  if (inline) {
    body = body.slice(inline[0].length);
    for (const f of inline[1]) if ((f === "i" || f === "m") && !flags.includes(f)) flags += f;
  }
  body = body.replace(/\(\?P<([A-Za-z_]\w*)>/g, "(?<$1>").replace(/\(\?P=([A-Za-z_]\w*)\)/g, "\\k<$1>");
  return new RegExp(body, flags);
}

/**
 * Makes a merged config from mini-swe-agent files fit patchloop, in place: applies
 * `model.model_class`, removes the ignored keys; returns the warnings (ignored keys, protocol and
 * prompt disagreeing, unknown model_kwargs).
 */
export function stripIgnoredMiniKeys(config: Plain, origin: Map<string, string>): string[] {
  const warnings: string[] = [];
  applyModelClass(config, origin, warnings);
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
  const mismatch = formatMismatch(config, origin);
  if (mismatch) warnings.push(mismatch);
  warnings.push(...kwargTypos(config, origin));
  return warnings;
}

function isBashC(value: unknown): boolean {
  return Array.isArray(value) && value.length === 2 && value[0] === "bash" && value[1] === "-c";
}
