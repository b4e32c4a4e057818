import { copyJson } from "../util/json-walk.js";

const SECRET_KEY = /(api[_-]?key|token|secret|password|passwd|authorization|credential)/i;

/** Whether a config key name holds a secret value (names of env vars holding keys, `*_env`, do not). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) && !key.endsWith("_env") && key !== "forward_env";
}

/**
 * `scheme://user:password@` in a URL. The user information runs to the last `@` before the end of
 * the authority (`/ ? #`, white space, quotes, angle brackets), so an unescaped `@` in a password
 * is covered too; a URL without a password (`ssh://git@host`) does not match.
 */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>]*:[^\s/?#"'<>]*@/gi;

/** `text` with the credentials of every URL in it masked: `https://user:pw@host` → `https://***@host`. */
export function maskUrlCredentials(text: string): string {
  return text.includes("://") ? text.replace(URL_CREDENTIALS, "$1***@") : text;
}

/**
 * A deep copy with every string under a secret-looking key (at any depth below it) replaced by
 * `***` and URL credentials masked in every other string (for display and for trajectories).
 * Numbers, booleans and null stay as they are.
 */
export function redactSecrets<T>(value: T): T {
  return copyJson(value, false, {
    string: (text, secret) => (secret ? "***" : maskUrlCredentials(text)),
    member: (key, secret) => secret || isSecretKey(key),
  }) as T;
}
