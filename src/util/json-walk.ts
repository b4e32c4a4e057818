/**
 * Deep copies of JSON-like values without recursion. Values made from model output (tool-call
 * arguments, raw response bodies) can be nested 100,000 levels deep: a recursive walk, and
 * `JSON.stringify` itself, overflow the stack on them. These walks use an explicit stack and cut
 * every branch at `maxDepth`, so what they return can always be serialised.
 */

/** Levels kept by default; deeper values are replaced by a short note (see {@link tooDeepNote}). */
export const MAX_JSON_DEPTH = 200;

/** What stands in for a value nested deeper than the limit. */
export function tooDeepNote(maxDepth: number): string {
  return `[patchloop: nested deeper than ${maxDepth} levels; not kept]`;
}

/** How {@link copyJson} treats the values it meets. */
export interface JsonVisitor<C> {
  /** The copy of a string value (default: the string). */
  string?(value: string, context: C): unknown;
  /** The context of an object's member `key` (default: the parent's). Arrays pass theirs on. */
  member?(key: string, context: C): C;
}

interface Frame<C> {
  /** Entries still to copy: [key, value] for objects, [index, value] for arrays. */
  entries: Array<[string | number, unknown]>;
  next: number;
  out: Record<string, unknown> | unknown[];
  context: C;
  depth: number;
}

function unwrap(value: unknown): unknown {
  // Objects with toJSON (dates, URLs) are written as JSON.stringify would write them.
  if (typeof value === "object" && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return (toJSON as () => unknown).call(value);
  }
  return value;
}

/**
 * A deep copy of `root` (objects, arrays, strings, numbers, booleans, null) with every string
 * passed through `visitor.string`, walked iteratively; a container deeper than `maxDepth` becomes
 * {@link tooDeepNote}. Functions and undefined members are dropped, as JSON.stringify drops them.
 */
export function copyJson<C>(
  root: unknown,
  context: C,
  visitor: JsonVisitor<C>,
  maxDepth = MAX_JSON_DEPTH,
): unknown {
  const leaf = (
    value: unknown,
    ctx: C,
  ): { done: true; value: unknown } | { done: false; frame: Frame<C> } => {
    const v = unwrap(value);
    if (typeof v === "string") return { done: true, value: visitor.string ? visitor.string(v, ctx) : v };
    if (typeof v !== "object" || v === null) return { done: true, value: v };
    if (Array.isArray(v)) {
      return {
        done: false,
        frame: {
          entries: v.map((x, i) => [i, x]),
          next: 0,
          out: new Array(v.length),
          context: ctx,
          depth: 0,
        },
      };
    }
    return { done: false, frame: { entries: Object.entries(v), next: 0, out: {}, context: ctx, depth: 0 } };
  };

  const first = leaf(root, context);
  if (first.done) return first.value;
  first.frame.depth = 1;
  if (maxDepth < 1) return tooDeepNote(maxDepth);
  const result = first.frame.out;
  const stack: Frame<C>[] = [first.frame];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next >= top.entries.length) {
      stack.pop();
      continue;
    }
    const [key, value] = top.entries[top.next++];
    if (value === undefined || typeof value === "function" || typeof value === "symbol") {
      if (Array.isArray(top.out)) top.out[key as number] = null;
      continue;
    }
    const childContext =
      typeof key === "string" && visitor.member ? visitor.member(key, top.context) : top.context;
    const step = leaf(value, childContext);
    let copied: unknown;
    if (step.done) copied = step.value;
    else if (top.depth + 1 > maxDepth) copied = tooDeepNote(maxDepth);
    else {
      step.frame.depth = top.depth + 1;
      stack.push(step.frame);
      copied = step.frame.out;
    }
    if (Array.isArray(top.out)) top.out[key as number] = copied;
    else top.out[key as string] = copied;
  }
  return result;
}

/** Whether `value` has containers nested more than `maxDepth` levels deep (iterative). */
export function deeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
