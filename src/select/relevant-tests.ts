import { isTestModule, isTestPath } from "./test-paths.js";

/** A changed module as tests name it: `pkg/sub/mod.py` is `pkg.sub.mod`, stem `mod`. */
interface ModuleName {
  path: string;
  dotted: string;
  stem: string;
  dir: string;
}

/** The import name of a Python file (`src/` and `lib/` dropped, `__init__` is its package), or null for other files. */
export function moduleOf(path: string): ModuleName | null {
  if (!path.endsWith(".py") || isTestPath(path)) return null;
  let rel = path.slice(0, -3);
  rel = rel.replace(/^(src|lib)\//, "");
  if (rel.endsWith("/__init__")) rel = rel.slice(0, -"/__init__".length);
  const parts = rel.split("/").filter(Boolean);
  if (parts.length === 0 || parts.some((p) => !/^[A-Za-z_]\w*$/.test(p))) return null;
  return {
    path,
    dotted: parts.join("."),
    stem: parts.at(-1) as string,
    dir: path.split("/").slice(0, -1).join("/"),
  };
}

const esc = (s: string) => s.replace(/[.]/g, "\\.");

/** An extended regular expression (git grep -E) matching lines that import `m` or its stem from its package. */
export function importPattern(m: ModuleName): string {
  const parent = m.dotted.split(".").slice(0, -1).join(".");
  const direct = `(from|import)[[:space:]]+${esc(m.dotted)}([^[:alnum:]_]|$)`;
  return parent
    ? `${direct}|from[[:space:]]+${esc(parent)}[[:space:]]+import[[:space:]].*(^|[^[:alnum:]_])${m.stem}([^[:alnum:]_]|$)`
    : direct;
}

/** Path segments two paths share from the start. */
function shared(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n;
}

/** Whether a test module is named after a changed module (`test_mod.py`, `mod_test.py`, `test_mod_*.py`). */
function namedAfter(test: string, m: ModuleName): boolean {
  const name = (test.split("/").at(-1) ?? "").replace(/\.py$/, "");
  return name === `test_${m.stem}` || name === `${m.stem}_test` || name.startsWith(`test_${m.stem}_`);
}

/**
 * The test modules relevant to the changed files (step 2 of docs/selection.md), most relevant
 * first, at most `max`: those named after a changed module, then those importing one (`importers`
 * lists them per changed module), each kind ordered by how close it lies to the module, then by
 * path. Only files the runner collects (`test_*.py`, `*_test.py`, `tests.py`) are chosen.
 */
export function chooseTests(
  changed: ModuleName[],
  testModules: string[],
  importers: Map<string, string[]>,
  max: number,
): string[] {
  const score = new Map<string, number>();
  const add = (file: string, s: number) => score.set(file, Math.max(score.get(file) ?? -1, s));
  const modules = testModules.filter(isTestModule);
  for (const m of changed) {
    for (const t of modules) if (namedAfter(t, m)) add(t, 1000 + shared(t, m.path));
    for (const t of importers.get(m.path) ?? []) if (isTestModule(t)) add(t, shared(t, m.path));
  }
  return [...score.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([f]) => f);
}
