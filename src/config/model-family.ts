import type { ReasoningFamily } from "./reasoning-families.js";

/**
 * The model family a served model's name (or the path a server reports it was loaded from) names,
 * for applying that family's preset when `model.family` is not set (docs/models.md, "The family
 * from the model's name"). Names are matched lowercased, anywhere in the text, so that
 * `Qwen/Qwen3.6-35B-A3B`, `/models/qwen3-8b-awq` and `unsloth/Qwen3-Coder-30B` all say Qwen3.
 */
export interface NamedFamily {
  /** The family as people write it, for messages. */
  label: string;
  /** The `model.family` value and the preset (configs/<layer>.yaml) it applies; null: patchloop has none for it. */
  layer: ReasoningFamily | null;
}

interface Pattern extends NamedFamily {
  test: RegExp;
}

const PATTERNS: readonly Pattern[] = [
  { label: "Qwen3", layer: "qwen3", test: /qwen3(?![0-9])/ },
  { label: "Gemma 4", layer: "gemma4", test: /gemma[-_ ]?4(?![0-9])/ },
  { label: "gpt-oss", layer: "gpt_oss", test: /gpt[-_ ]?oss/ },
  { label: "GLM-4.5/4.6/4.7", layer: "glm", test: /glm[-_ ]?4\.?[5-7](?![0-9])/ },
  { label: "Kimi K2", layer: "kimi_k2", test: /kimi[-_ ]?k2(?![0-9])/ },
  { label: "MiniMax M2", layer: "minimax_m2", test: /minimax[-_ ]?m2(?![0-9])/ },
  { label: "DeepSeek V4", layer: "deepseek_v4", test: /deepseek[-_ ]?v4(?![0-9])/ },
  { label: "DeepSeek V3/R1", layer: null, test: /deepseek[-_ ]?(?:v3|r1)(?![0-9])/ },
];

/** The family `name` names, or null for a name patchloop does not know (it then runs as configured). */
export function familyFromName(name: string): NamedFamily | null {
  const text = name.toLowerCase();
  const hit = PATTERNS.find((p) => p.test.test(text));
  return hit ? { label: hit.label, layer: hit.layer } : null;
}

/** Every family patchloop recognises in a name, for documentation and help. */
export const KNOWN_FAMILIES: readonly NamedFamily[] = PATTERNS.map(({ label, layer }) => ({ label, layer }));
