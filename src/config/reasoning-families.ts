/**
 * The model families whose chat template decides which earlier reasoning goes back to the server
 * (`model.family`); models/reasoning-chain.ts holds each family's rule. Here, below the config
 * schema that validates the name, so the schema needs nothing from models/.
 */
export const REASONING_FAMILIES = [
  "qwen3",
  "gemma4",
  "gpt_oss",
  "glm",
  "kimi_k2",
  "minimax_m2",
  "deepseek_v4",
  "claude",
] as const;
export type ReasoningFamily = (typeof REASONING_FAMILIES)[number];
