/**
 * Nesting depth of model output, measured without recursion: a reply nested 100,000 levels deep
 * overflows any recursive walk (JSON.stringify and structuredClone included), so every walk here
 * keeps its own stack.
 */

/** The most nesting accepted in tool-call arguments and reply bodies. */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests arrays/objects deeper than `limit` (brackets inside strings do not count). */
export function jsonTextTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (ch === 93 || ch === 125) depth--;
  }
  return false;
}

/** Whether a parsed value nests arrays/objects deeper than `limit`. */
export function valueTooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push({ v: child, d: d + 1 });
  }
  return false;
}

/**
 * JSON text of a value, without recursion (so any depth works); `undefined` and functions in
 * objects are left out and become `null` in arrays, as JSON.stringify does.
 */
export function stringifyIterative(value: unknown): string {
  const out: string[] = [];
  type Frame = { items: Array<[string | null, unknown]>; i: number; close: string };
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    if (v === null || typeof v === "number" || typeof v === "boolean" || typeof v === "string") {
      out.push(JSON.stringify(v) ?? "null");
      return;
    }
    if (typeof v !== "object") {
      out.push("null");
      return;
    }
    if (Array.isArray(v)) {
      out.push("[");
      stack.push({ items: v.map((x) => [null, x]), i: 0, close: "]" });
    } else {
      out.push("{");
      const entries = Object.entries(v as Record<string, unknown>).filter(
        ([, x]) => x !== undefined && typeof x !== "function",
      );
      stack.push({ items: entries, i: 0, close: "}" });
    }
  };
  open(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i >= top.items.length) {
      out.push(top.close);
      stack.pop();
      continue;
    }
    const [key, v] = top.items[top.i];
    if (top.i > 0) out.push(",");
    top.i++;
    if (key !== null) out.push(`${JSON.stringify(key)}:`);
    open(v);
  }
  return out.join("");
}
