const SECRET_KEY = /(api[_-]?key|token|secret|password|passwd|authorization|credential)/i;

/** Whether a config key name holds a secret value (names of env vars holding keys, `*_env`, do not). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) && !key.endsWith("_env") && key !== "forward_env";
}

/** A deep copy with the values of secret-looking keys replaced (for display and for trajectories). */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v)) as T;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = isSecretKey(k) && typeof v === "string" ? "***" : redactSecrets(v);
    }
    return out as T;
  }
  return value;
}
