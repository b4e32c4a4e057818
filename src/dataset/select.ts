import { DatasetError } from "./errors.js";
import type { Selection, SwebenchInstance } from "./types.js";

/** The seed `--shuffle` uses when none is given. */
export const DEFAULT_SHUFFLE_SEED = 42;

interface ResolvedSlice {
  /** START, STOP and STEP as written (undefined where omitted). */
  start?: number;
  stop?: number;
  step: number;
  /** The first index taken and the bound not reached, after Python's negative-index rules and clamping. */
  from: number;
  to: number;
}

/** Parses a slice spec and resolves it against `n` items; a malformed spec is a `DatasetError`. */
function resolveSlice(spec: string, n: number): ResolvedSlice {
  const parts = spec.split(":");
  if (
    parts.length < 2 ||
    parts.length > 3 ||
    parts.some((p) => p.trim() !== "" && !/^-?\d+$/.test(p.trim()))
  ) {
    throw new DatasetError(
      `invalid --slice ${JSON.stringify(spec)}: expected START:STOP[:STEP] with integers, e.g. 0:10 or -5:`,
    );
  }
  const [start, stop, step] = parts.map((p) => (p.trim() === "" ? undefined : Number(p.trim())));
  const s = step ?? 1;
  if (s === 0) throw new DatasetError(`invalid --slice ${JSON.stringify(spec)}: the step cannot be 0`);
  const clamp = (v: number | undefined, dflt: number, lo: number, hi: number): number => {
    if (v === undefined) return dflt;
    const x = v < 0 ? v + n : v;
    return Math.min(Math.max(x, lo), hi);
  };
  return s > 0
    ? { start, stop, step: s, from: clamp(start, 0, 0, n), to: clamp(stop, n, 0, n) }
    : { start, stop, step: s, from: clamp(start, n - 1, -1, n - 1), to: clamp(stop, -1, -1, n - 1) };
}

/**
 * Parses `A:B` or `A:B:C` (each part optional, negatives allowed) and applies it with Python's
 * slice semantics: `0:5`, `-3:`, `:-1`, `::2`, `5:2` (empty). A bad spec is a `DatasetError`.
 */
export function pySlice<T>(items: T[], spec: string): T[] {
  const { step, from, to } = resolveSlice(spec, items.length);
  const out: T[] = [];
  if (step > 0) for (let i = from; i < to; i += step) out.push(items[i]);
  else for (let i = from; i > to; i += step) out.push(items[i]);
  return out;
}

/** `5`, or `-3, i.e. 7` where a negative index was counted from the end. */
function shown(written: number | undefined, resolved: number): string {
  return written !== undefined && written < 0 ? `${written}, i.e. ${resolved}` : String(written ?? resolved);
}

/**
 * Why `spec`, which selects nothing from `n` (> 0) items, does so. `pool` names the items, e.g.
 * "the 300 instances".
 */
function emptySliceReason(spec: string, n: number, pool: string): string {
  const r = resolveSlice(spec, n);
  const head = `--slice ${spec} selects nothing:`;
  const range = n === 1 ? "index 0, or -1" : `indexes 0 to ${n - 1}, or -${n} to -1`;
  if (r.step > 0) {
    if (r.start !== undefined && r.start >= n)
      return `${head} the start (${r.start}) is past the end of ${pool} (${range})`;
    return `${head} the start (${shown(r.start, r.from)}) is not before the end (${shown(r.stop, r.to)})`;
  }
  if (r.start !== undefined && r.start < -n)
    return `${head} the start (${r.start}) is before the beginning of ${pool} (${range})`;
  return `${head} with a negative step the start (${shown(r.start, r.from)}) must be after the end (${shown(r.stop, r.to)})`;
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same order on every machine. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rows sorted by id, then Fisher-Yates shuffled with `seed`: independent of the input order. */
export function seededShuffle(rows: SwebenchInstance[], seed: number): SwebenchInstance[] {
  const out = [...rows].sort((a, b) =>
    a.instance_id < b.instance_id ? -1 : a.instance_id > b.instance_id ? 1 : 0,
  );
  const next = rng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Applies the selection flags in this order: `instanceIds` (every id must exist, else a
 * `DatasetError` listing the unknown ones), `shuffle` (seeded), `filter` (a regex matched at the
 * start of the id, like Python's `re.match`, as in mini-swe-agent), then `slice`. A slice that is
 * the empty string, or that selects nothing from a non-empty list, is a `DatasetError` saying why
 * (an empty list before slicing is returned as is: the ids or the filter emptied it).
 */
export function selectInstances(rows: SwebenchInstance[], sel: Selection = {}): SwebenchInstance[] {
  let out = rows;
  if (sel.instanceIds && sel.instanceIds.length > 0) {
    const known = new Set(rows.map((r) => r.instance_id));
    const unknown = sel.instanceIds.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new DatasetError(
        `unknown instance id${unknown.length > 1 ? "s" : ""} (not in the dataset): ${unknown.join(", ")}. ` +
          "Check the spelling and the dataset/split.",
      );
    }
    const wanted = new Set(sel.instanceIds);
    out = out.filter((r) => wanted.has(r.instance_id));
  }
  if (sel.shuffle) out = seededShuffle(out, sel.seed ?? DEFAULT_SHUFFLE_SEED);
  if (sel.filter !== undefined && sel.filter !== "") {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${sel.filter})`);
    } catch (err) {
      throw new DatasetError(
        `invalid --filter regex ${JSON.stringify(sel.filter)}: ${(err as Error).message}`,
      );
    }
    out = out.filter((r) => re.test(r.instance_id));
  }
  if (sel.slice !== undefined) {
    if (sel.slice.trim() === "")
      throw new DatasetError(`--slice needs A:B, e.g. 0:10; got ${JSON.stringify(sel.slice)}`);
    const sliced = pySlice(out, sel.slice);
    if (sliced.length === 0 && out.length > 0) {
      const narrowed = [
        sel.instanceIds && sel.instanceIds.length > 0 ? "--instance-ids" : "",
        sel.filter ? "--filter" : "",
      ].filter(Boolean);
      const count = `${out.length} instance${out.length === 1 ? "" : "s"}`;
      const pool = narrowed.length > 0 ? `the ${count} left after ${narrowed.join(" and ")}` : `the ${count}`;
      throw new DatasetError(emptySliceReason(sel.slice, out.length, pool));
    }
    out = sliced;
  }
  return out;
}
