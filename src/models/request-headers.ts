import { VERSION } from "../version.js";

/**
 * The Messages API version sent in `anthropic-version`: the one the official SDK sent before
 * patchloop spoke the API itself (the request and reply shapes of anthropic-request.ts and
 * anthropic-response.ts are that version's).
 */
export const ANTHROPIC_VERSION = "2026-10-21";

/**
 * The headers of every model request: JSON both ways, the key as `Authorization: Bearer` (the
 * placeholder key too: some proxies want the header present), `User-Agent: patchloop/VERSION`;
 * for Anthropic `anthropic-version`; for OpenAI the organization and project of
 * `OPENAI_ORG_ID` / `OPENAI_PROJECT_ID` when set (the hosted API bills those).
 */
export function requestHeaders(
  provider: "openai" | "anthropic",
  apiKey: string,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: "application/json",
    "content-type": "application/json",
    authorization: `Bearer ${apiKey}`,
    "user-agent": `patchloop/${VERSION}`,
  };
  if (provider === "anthropic") headers["anthropic-version"] = ANTHROPIC_VERSION;
  else {
    if (env.OPENAI_ORG_ID) headers["openai-organization"] = env.OPENAI_ORG_ID;
    if (env.OPENAI_PROJECT_ID) headers["openai-project"] = env.OPENAI_PROJECT_ID;
  }
  return headers;
}
