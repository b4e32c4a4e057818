import { createHmac, timingSafeEqual } from "node:crypto";
import { ConfigError } from "../config/errors.js";
import { isPlain } from "../config/merge.js";

/**
 * Signatures of queue messages with a secret the coordinator and its workers share
 * (`run.queue.secret_env` names the variable holding it; the secret never goes into Redis): the
 * coordinator signs each instance job, a worker each result and refusal. HMAC-SHA256 over the message's JSON
 * with sorted keys, and over what kind of message it is, so that one kind's signature never
 * passes for another's.
 */

/** Characters a shared secret has at least. */
export const MIN_SECRET_LENGTH = 16;

/** What is signed. */
export type SignedKind = "job" | "result" | "refusal";

/** The queue's shared secret: null when `name` is null; a ConfigError when the variable is unset or short. */
export function queueSecret(name: string | null, env: NodeJS.ProcessEnv = process.env): Buffer | null {
  if (name === null) return null;
  const value = env[name];
  if (value === undefined || value === "")
    throw new ConfigError(
      `run.queue.secret_env names ${name}, which is not set here; export it with the secret ` +
        "(the same value on the coordinator and on every worker, e.g. from openssl rand -hex 32)",
    );
  if (value.length < MIN_SECRET_LENGTH)
    throw new ConfigError(
      `run.queue.secret_env names ${name}, which holds ${value.length} character(s); a shared secret needs at ` +
        `least ${MIN_SECRET_LENGTH} (e.g. openssl rand -hex 32)`,
    );
  return Buffer.from(value, "utf8");
}

/**
 * The JSON text of `value` with the keys of every object sorted: the same text for the same
 * data however its keys were ordered, before and after a trip through Redis.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isPlain(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/** The signature (hex) of a message of `kind`. */
export function signature(secret: Buffer, kind: SignedKind, payload: unknown): string {
  return createHmac("sha256", secret)
    .update(`patchloop-${kind}\n`)
    .update(canonicalJson(payload))
    .digest("hex");
}

/** Whether `sig` is the signature of `payload` as a `kind` (compared in constant time). */
export function signatureMatches(secret: Buffer, kind: SignedKind, payload: unknown, sig: string): boolean {
  const want = Buffer.from(signature(secret, kind, payload), "hex");
  const got = Buffer.from(sig, "hex");
  return got.length === want.length && timingSafeEqual(got, want);
}
