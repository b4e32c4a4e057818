/** A plain object (not an array, not null). */
export type Plain = Record<string, unknown>;

export function isPlain(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Deep-merges `layer` into `target` in place: maps merge, everything else (lists included)
 * replaces. Records in `origin` which source last set each dotted leaf path.
 */
export function mergeInto(
  target: Plain,
  layer: Plain,
  source: string,
  origin: Map<string, string>,
  prefix = "",
): void {
  for (const [key, value] of Object.entries(layer)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const existing = target[key];
    if (isPlain(value) && isPlain(existing)) {
      origin.set(path, source);
      mergeInto(existing, value, source, origin, path);
    } else {
      target[key] = isPlain(value) ? structuredClone(value) : value;
      markAll(path, value, source, origin);
    }
  }
}

function markAll(path: string, value: unknown, source: string, origin: Map<string, string>): void {
  origin.set(path, source);
  if (isPlain(value)) for (const [k, v] of Object.entries(value)) markAll(`${path}.${k}`, v, source, origin);
}

/** The source that set `path`, or the closest ancestor's. */
export function originOf(path: string, origin: Map<string, string>): string | undefined {
  let p = path;
  while (p) {
    const hit = origin.get(p);
    if (hit) return hit;
    const dot = p.lastIndexOf(".");
    p = dot < 0 ? "" : p.slice(0, dot);
  }
  return undefined;
}
