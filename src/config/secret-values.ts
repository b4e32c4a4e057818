import { copyJson } from "../util/json-walk.js";
import { isSecretKey, maskUrlCredentials } from "./redact.js";

/** Values shorter than this are never collected: masking "true", a port or "none" everywhere would garble files. */
export const MIN_SECRET_LENGTH = 8;

/** A host variable's value this long counts as a token whatever its characters (see {@link isTokenLike}). */
export const MIN_HOST_TOKEN_LENGTH = 16;

/** Host variables whose names look secret but hold a location or a name, not a secret (`HF_TOKEN_PATH`). */
const LOCATION_NAME = /_(PATH|FILE|DIR|URL|ENV)$/i;

/** `Bearer XYZ`, `Basic XYZ`, `token XYZ`: a scheme word and one token. */
const SCHEME_AND_TOKEN = /^\S+\s+(\S+)$/;

/** The password part of `scheme://user:password@`, wherever a URL occurs in a string. */
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#"'<>:]*:([^\s/?#"'<>]*)@/gi;

/** Where {@link secretValues} looks, and what the writers of run files accept (see `TrajectoryRecorder`, `RunLog`). */
export interface SecretSource {
  /** A resolved config (not redacted): its secret values and those of the variables it names are collected. */
  config?: unknown;
  /** Secret values known otherwise, masked as they are. */
  secrets?: readonly string[];
}

/** Whether a value is long enough to be masked wherever it occurs. */
const longEnough = (value: string) => value.length >= MIN_SECRET_LENGTH;

/**
 * Whether a host variable's value looks like a token rather than a word: at least
 * {@link MIN_HOST_TOKEN_LENGTH} characters, or at least {@link MIN_SECRET_LENGTH} with both a
 * letter and a digit. `password`, `postgres` and `20481024` do not; `hf_abc123xyz` does.
 */
export function isTokenLike(value: string): boolean {
  if (value.length >= MIN_HOST_TOKEN_LENGTH) return true;
  return value.length >= MIN_SECRET_LENGTH && /[a-z]/i.test(value) && /[0-9]/.test(value);
}

/** Adds `value` and, for `Bearer XYZ`, its token, each when `accept` says so. */
function addValue(out: Set<string>, value: string, accept: (v: string) => boolean = longEnough): void {
  if (accept(value)) out.add(value);
  const token = SCHEME_AND_TOKEN.exec(value.trim());
  if (token && accept(token[1])) out.add(token[1]);
}

function addUrlPasswords(out: Set<string>, text: string): void {
  if (!text.includes("://")) return;
  for (const m of text.matchAll(URL_PASSWORD)) {
    addValue(out, m[1]);
    try {
      addValue(out, decodeURIComponent(m[1]));
    } catch {
      // not percent-encoded validly: the raw form is collected already
    }
  }
}

function walk(value: unknown, secret: boolean, env: NodeJS.ProcessEnv, out: Set<string>): void {
  if (typeof value === "string") {
    if (secret) addValue(out, value);
    addUrlPasswords(out, value);
  } else if (Array.isArray(value)) {
    for (const v of value) walk(v, secret, env, out);
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      // `api_key_env: NAME` names the variable holding a key: its value is a secret.
      if (k.endsWith("_env") && typeof v === "string" && isSecretKey(k.slice(0, -4))) {
        const named = env[v];
        if (named) addValue(out, named);
      }
      walk(v, secret || isSecretKey(k), env, out);
    }
  }
}

/** Whether a host environment variable's name says it holds a secret (`*API_KEY*`, `*TOKEN*`, ...). */
export function isSecretEnvName(name: string): boolean {
  return isSecretKey(name) && !LOCATION_NAME.test(name);
}

/**
 * The secret values to keep out of written files, longest first, each once:
 * - from `config`: every string under a secret-looking key at any depth (`api_key`, `Authorization`,
 *   ...; and the token of a `Bearer XYZ` value), the password of every URL with credentials, and the
 *   variable named by a `*_env` key such as `model.api_key_env`. These are the user's own secrets:
 *   any value of at least {@link MIN_SECRET_LENGTH} characters is taken.
 * - from `env` (the host): every variable whose name looks secret ({@link isSecretEnvName}), but
 *   only when its value is token-like ({@link isTokenLike}: at least {@link MIN_HOST_TOKEN_LENGTH}
 *   characters, or at least {@link MIN_SECRET_LENGTH} with a letter and a digit). The name alone is
 *   a guess, and `DB_PASSWORD=postgres` masking every "postgres" of a run would garble it.
 */
export function secretValues(config: unknown, env: NodeJS.ProcessEnv = process.env): string[] {
  const out = new Set<string>();
  walk(config, false, env, out);
  for (const [name, value] of Object.entries(env)) {
    if (value && isSecretEnvName(name)) addValue(out, value, isTokenLike);
  }
  return [...out].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/**
 * The secrets of a {@link SecretSource}: its config's, its explicit ones and the host's secret
 * variables (those even without a source), longest first.
 */
export function secretsOf(source: SecretSource | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = (source?.secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH);
  const all = [...new Set([...secretValues(source?.config, env), ...explicit])];
  return all.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/** The forms a value takes in text: as is, inside a JSON string, inside a JSON string inside a JSON string. */
function formsOf(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([secret, once, twice])];
}

/**
 * A function that replaces every occurrence of the `secrets` (in each of their JSON-escaped forms
 * too) by `***` and masks URL credentials (`scheme://***@host`). Build it once, call it per write.
 */
export function createScrubber(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap(formsOf))];
  forms.sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join("***");
    return maskUrlCredentials(out);
  };
}

/** `text` with every secret value replaced by `***` and URL credentials masked (see {@link createScrubber}). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return createScrubber(secrets)(text);
}

/**
 * A deep copy of `value` with every string VALUE (at any depth, in objects and arrays) passed
 * through `scrub`; keys, numbers, booleans and null stay as they are, so the JSON written from
 * the copy always parses and its numbers are intact (scrubbing serialized JSON text would not
 * guarantee either). Objects with `toJSON` (dates) are converted first, as `JSON.stringify` would.
 * The walk is iterative and cuts branches deeper than MAX_JSON_DEPTH (util/json-walk.ts), so a
 * value built from hostile model output can neither overflow the stack here nor in JSON.stringify.
 */
export function scrubStringValues<T>(value: T, scrub: (text: string) => string): T {
  return copyJson(value, null, { string: (text) => scrub(text) }) as T;
}

/**
 * `value` with the secrets of `source` (see {@link secretsOf}: its config's, its explicit ones, the
 * host's) and URL credentials masked as `***` in every string value ({@link scrubStringValues}).
 * What run.json's `config` holds is `scrubObjectSecrets(redactSecrets(config), { config })`.
 */
export function scrubObjectSecrets<T>(
  value: T,
  source: SecretSource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): T {
  return scrubStringValues(value, createScrubber(secretsOf(source, env)));
}

/**
 * A patch with every line that holds a secret (or URL credentials) masked by `scrub`, and how many
 * lines were masked. Lines are masked in place, so the patch keeps its shape; a masked context or
 * removed line no longer matches the original file, which is why the count is reported to the
 * person as a warning.
 */
export function maskPatchSecrets(
  patch: string,
  scrub: (text: string) => string,
): { patch: string; masked: number } {
  let masked = 0;
  const lines = patch.split("\n").map((line) => {
    const clean = scrub(line);
    if (clean !== line) masked++;
    return clean;
  });
  return { patch: masked > 0 ? lines.join("\n") : patch, masked };
}
