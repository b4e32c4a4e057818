import { DatasetError } from "./dataset/errors.js";
import type { Selection, SwebenchInstance } from "./types.js";

/** The seed `--shuffle` uses when none is given. */
export const DEFAULT_SHUFFLE_SEED = 42;

/**
 * Parses `A:B` or `A:B:C` (each part optional, negatives allowed) and applies it with Python's
 * slice semantics: `0:5`, `-3:`, `:-1`, `::2`, `5:2` (empty). A bad spec is a `DatasetError`.
 */
export function pySlice<T>(items: T[], spec: string): T[] {
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
  const n = items.length;
  const s = step ?? 1;
  if (s === 0) throw new DatasetError(`invalid --slice ${JSON.stringify(spec)}: the step cannot be 0`);
  const clamp = (v: number | undefined, dflt: number, lo: number, hi: number): number => {
    if (v === undefined) return dflt;
    const x = v < 0 ? v + n : v;
    return Math.min(Math.max(x, lo), hi);
  };
  const out: T[] = [];
  if (s > 0) {
    const a = clamp(start, 0, 0, n);
    const b = clamp(stop, n, 0, n);
    for (let i = a; i < b; i += s) out.push(items[i]);
  } else {
    const a = clamp(start, n - 1, -1, n - 1);
    const b = clamp(stop, -1, -1, n - 1);
    for (let i = a; i > b; i += s) out.push(items[i]);
  }
  return out;
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
 * start of the id, like Python's `re.match`, as in mini-swe-agent), then `slice`.
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
  if (sel.slice !== undefined && sel.slice !== "") out = pySlice(out, sel.slice);
  return out;
}
