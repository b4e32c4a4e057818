import type { ModelConfig } from "../config/schema.js";
import { baseUrls } from "./replica-pool.js";

/** Where requests go and with which key. */
export interface Endpoint {
  /** The first (or only) server. */
  baseURL: string;
  /** Every server of `model.base_url` (replicas of one model), the first being `baseURL`. */
  baseURLs: string[];
  apiKey: string;
  /** The vendor's own API (api.openai.com / api.anthropic.com), as opposed to a local/custom server. */
  hosted: boolean;
}

const DEFAULTS = {
  openai: {
    baseURL: "https://api.openai.com/v1",
    keyEnv: "OPENAI_API_KEY",
    baseEnv: "OPENAI_BASE_URL",
    example: "http://127.0.0.1:8000/v1",
  },
  anthropic: {
    baseURL: "https://api.anthropic.com",
    keyEnv: "ANTHROPIC_API_KEY",
    baseEnv: "ANTHROPIC_BASE_URL",
    example: "https://api.anthropic.com",
  },
} as const;

const HOSTED = new Set(["api.openai.com", "api.anthropic.com"]);

/** Placeholder key for servers that do not check one (sent all the same: some proxies want the header). */
export const NO_KEY = "not-needed";

/**
 * Base URL: `model.base_url` (one, or a list of replicas: each must be an http(s) URL), else
 * `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`, else the vendor's API. Key: the variable named by `model.api_key_env` (default `OPENAI_API_KEY` /
 * `ANTHROPIC_API_KEY`). Throws when the base URL is not an http(s) URL, when the hosted API has no key, and
 * when an explicitly named key variable is unset. Otherwise a missing key becomes a placeholder.
 */
export function resolveEndpoint(
  provider: "openai" | "anthropic",
  config: Pick<ModelConfig, "base_url" | "api_key_env" | "model_name">,
  env: NodeJS.ProcessEnv,
): Endpoint {
  const d = DEFAULTS[provider];
  const given = baseUrls(config);
  const baseURLs = given.length > 0 ? given : [(env[d.baseEnv] || d.baseURL).replace(/\/+$/, "")];
  const urls = baseURLs.map((baseURL) => {
    let url: URL | null = null;
    try {
      url = new URL(baseURL);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw new Error(
        `model.base_url (or ${d.baseEnv}) is not an http(s) URL: received "${baseURL}"; expected e.g. ${d.example}`,
      );
    }
    return url;
  });
  const baseURL = baseURLs[0];
  const hosted = urls.some((u) => HOSTED.has(u.hostname));
  const keyEnv = config.api_key_env || d.keyEnv;
  const key = env[keyEnv];
  if (key) return { baseURL, baseURLs, apiKey: key, hosted };
  if (hosted || config.api_key_env) {
    const why = hosted ? `the hosted API at ${baseURL} needs a key` : "model.api_key_env names it";
    throw new Error(
      `${config.model_name}: the environment variable ${keyEnv} is not set (${why}). ` +
        `Export ${keyEnv}, or set model.api_key_env to the variable that holds the key.`,
    );
  }
  return { baseURL, baseURLs, apiKey: NO_KEY, hosted };
}
