import type { ModelConfig } from "../config/schema.js";
import type { Usage } from "./types.js";

/** USD per million tokens (the shape of `model.price`). */
export type Price = NonNullable<ModelConfig["price"]>;

/**
 * Public list prices of well-known hosted models, standard tier, no caching or batch discounts.
 * Checked against the vendors' public price lists as of November 2025; prices change, so set
 * `model.price` when it matters. A key also matches its dated snapshots (`-20250929`,
 * `-2024-08-06`) and `-latest`, nothing else (`gpt-4o-audio-preview` is not `gpt-4o`).
 */
export const KNOWN_PRICES: Readonly<Record<string, Price>> = {
  "openai/gpt-4o": { input_per_mtok: 2.5, output_per_mtok: 10 },
  "openai/gpt-4o-mini": { input_per_mtok: 0.15, output_per_mtok: 0.6 },
  "openai/gpt-4.1": { input_per_mtok: 2, output_per_mtok: 8 },
  "openai/gpt-4.1-mini": { input_per_mtok: 0.4, output_per_mtok: 1.6 },
  "openai/gpt-4.1-nano": { input_per_mtok: 0.1, output_per_mtok: 0.4 },
  "openai/gpt-5": { input_per_mtok: 1.25, output_per_mtok: 10 },
  "openai/gpt-5-mini": { input_per_mtok: 0.25, output_per_mtok: 2 },
  "openai/gpt-5-nano": { input_per_mtok: 0.05, output_per_mtok: 0.4 },
  "openai/gpt-5.1": { input_per_mtok: 1.25, output_per_mtok: 10 },
  "anthropic/claude-opus-4-5": { input_per_mtok: 5, output_per_mtok: 25 },
  "anthropic/claude-opus-4-1": { input_per_mtok: 15, output_per_mtok: 75 },
  "anthropic/claude-opus-4-0": { input_per_mtok: 15, output_per_mtok: 75 },
  "anthropic/claude-opus-4": { input_per_mtok: 15, output_per_mtok: 75 },
  "anthropic/claude-sonnet-4-5": { input_per_mtok: 3, output_per_mtok: 15 },
  "anthropic/claude-sonnet-4-0": { input_per_mtok: 3, output_per_mtok: 15 },
  "anthropic/claude-sonnet-4": { input_per_mtok: 3, output_per_mtok: 15 },
  "anthropic/claude-haiku-4-5": { input_per_mtok: 1, output_per_mtok: 5 },
  "anthropic/claude-3-7-sonnet": { input_per_mtok: 3, output_per_mtok: 15 },
  "anthropic/claude-3-5-sonnet": { input_per_mtok: 3, output_per_mtok: 15 },
  "anthropic/claude-3-5-haiku": { input_per_mtok: 0.8, output_per_mtok: 4 },
};

const SNAPSHOT_SUFFIX = /^(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)?$/;

/** The table price of `provider/model` (e.g. `anthropic/claude-sonnet-4-5-20250929`), or null. */
export function knownPrice(qualifiedName: string): Price | null {
  const keys = Object.keys(KNOWN_PRICES).sort((a, b) => b.length - a.length);
  for (const key of keys) {
    if (qualifiedName.startsWith(key) && SNAPSHOT_SUFFIX.test(qualifiedName.slice(key.length))) {
      return KNOWN_PRICES[key];
    }
  }
  return null;
}

/** USD for `usage` at `price`. */
export function costOf(usage: Usage, price: Price): number {
  return (usage.prompt_tokens * price.input_per_mtok + usage.completion_tokens * price.output_per_mtok) / 1e6;
}

export interface CostSetup {
  /** `openai/<name>` or `anthropic/<name>`. */
  qualifiedName: string;
  /** Whether requests go to api.openai.com / api.anthropic.com (else: a local or custom endpoint). */
  hosted: boolean;
  /** `model.price`: wins over everything. */
  price: Price | null;
  costTracking: ModelConfig["cost_tracking"];
  warn: (msg: string) => void;
}

const warned = new WeakMap<(msg: string) => void, Set<string>>();

/**
 * How much one call costs: `model.price` if set; else 0 on a local endpoint; else the table
 * price. A hosted model without a known price costs 0 and is reported once per model name (per
 * `warn` function) unless `cost_tracking` is `ignore_errors`. The report happens here, at setup.
 */
export function createCostFunction(setup: CostSetup): (usage: Usage) => number {
  const price = setup.price ?? (setup.hosted ? knownPrice(setup.qualifiedName) : null);
  if (price) return (usage) => costOf(usage, price);
  if (setup.hosted && setup.costTracking !== "ignore_errors") {
    const seen = warned.get(setup.warn) ?? new Set<string>();
    warned.set(setup.warn, seen);
    if (!seen.has(setup.qualifiedName)) {
      seen.add(setup.qualifiedName);
      setup.warn(
        `no price known for ${setup.qualifiedName}: its cost is counted as 0, so agent.cost_limit cannot stop it. ` +
          "Set model.price {input_per_mtok, output_per_mtok}, or model.cost_tracking: ignore_errors to silence this.",
      );
    }
  }
  return () => 0;
}
