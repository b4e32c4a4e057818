const SECRET_KEY = /(api[_-]?key|token|secret|password|passwd|authorization|credential)/i;

/** A deep copy with the values of secret-looking keys replaced (for display and for trajectories). */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v)) as T;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const keepName = k.endsWith("_env") || k === "forward_env";
      out[k] = SECRET_KEY.test(k) && !keepName && typeof v === "string" ? "***" : redactSecrets(v);
    }
    return out as T;
  }
  return value;
}
