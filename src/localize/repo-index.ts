import type { RepoPaths } from "./lang/spec.js";
import type { RepoFile, RepoSnapshot } from "./repo-files.js";

/**
 * Lookups over a snapshot's paths: a path or a traceback's file as written in an issue → the
 * repository file, a dotted module name → its file, the words of each path.
 */

const SRC_ROOTS = new Set(["src", "lib", "python"]);

/** `pkg/sub/mod.py` → `pkg.sub.mod`, `pkg/__init__.py` → `pkg`; a leading src/, lib/ or python/ dropped. */
export function moduleNames(path: string): string[] {
  if (!/\.(py|pyx|pyi)$/.test(path)) return [];
  const parts = path.replace(/\.(py|pyx|pyi)$/, "").split("/");
  if (parts[parts.length - 1] === "__init__") parts.pop();
  if (parts.length === 0 || parts.some((p) => !/^[A-Za-z_]\w*$/.test(p))) return [];
  const out = [parts.join(".")];
  if (parts.length > 1 && SRC_ROOTS.has(parts[0])) out.push(parts.slice(1).join("."));
  return out;
}

export class RepoIndex implements RepoPaths {
  readonly byPath = new Map<string, number>();
  private byDir?: Map<string, number[]>;
  private readonly byBase = new Map<string, number[]>();
  readonly byModule = new Map<string, number>();
  /** Module names, for matching a dotted name against the end of one (`ascii.qdp`). */
  private readonly modules: Array<{ name: string; file: number }> = [];

  constructor(readonly files: RepoFile[]) {
    files.forEach((f, i) => {
      this.byPath.set(f.path, i);
      const base = f.path.slice(f.path.lastIndexOf("/") + 1);
      const list = this.byBase.get(base);
      if (list) list.push(i);
      else this.byBase.set(base, [i]);
      for (const m of moduleNames(f.path)) {
        // a module and a package of the same name: the module file wins
        if (!this.byModule.has(m) || f.path.endsWith("/__init__.py") === false) this.byModule.set(m, i);
        this.modules.push({ name: m, file: i });
      }
    });
  }

  file(path: string): number | undefined {
    return this.byPath.get(path);
  }

  pathOf(file: number): string {
    return this.files[file].path;
  }

  text(path: string): string | undefined {
    const i = this.byPath.get(path);
    return i === undefined ? undefined : this.files[i].doc.text;
  }

  endingWith(tail: string): number[] {
    const base = tail.slice(tail.lastIndexOf("/") + 1);
    return (this.byBase.get(base) ?? []).filter((i) => {
      const p = this.files[i].path;
      return p === tail || p.endsWith(`/${tail}`);
    });
  }

  inDir(dir: string): number[] {
    if (!this.byDir) {
      this.byDir = new Map();
      this.files.forEach((f, i) => {
        const d = f.path.includes("/") ? f.path.slice(0, f.path.lastIndexOf("/")) : "";
        const list = this.byDir!.get(d);
        if (list) list.push(i);
        else this.byDir!.set(d, [i]);
      });
    }
    return this.byDir.get(dir) ?? [];
  }

  static of(snapshot: RepoSnapshot): RepoIndex {
    return new RepoIndex(snapshot.files);
  }

  /**
   * The repository file a path from the issue names: exact, or the file whose path is the longest
   * tail of it. An absolute or outside path (`/usr/lib/python3/site-packages/pkg/mod.py`) must
   * match the file's whole path below any src/ folder; a relative one at least its last two parts
   * (or the whole path of a top-level file); a bare file name only the one file of that name.
   */
  resolvePath(written: string): number | undefined {
    const p = written.replace(/\\/g, "/").replace(/^\.\//, "");
    const exact = this.byPath.get(p) ?? this.byPath.get(p.replace(/^[ab]\//, ""));
    if (exact !== undefined) return exact;
    const parts = p.split("/").filter((x) => x !== "" && x !== ".");
    const base = parts[parts.length - 1];
    const candidates = this.byBase.get(base);
    if (!candidates) return undefined;
    // a bare file name (`__init__.py`, `setup.py`) names a file only when one file has that name
    if (parts.length === 1 && candidates.length > 1) return undefined;
    const absolute = written.startsWith("/") || /^[A-Za-z]:/.test(written) || written.startsWith("~");
    let best: number | undefined;
    let bestLen = 0;
    for (const i of candidates) {
      const fp = this.files[i].path.split("/");
      let n = 0;
      while (n < fp.length && n < parts.length && fp[fp.length - 1 - n] === parts[parts.length - 1 - n]) n++;
      const below = fp.length - (fp.length > 1 && SRC_ROOTS.has(fp[0]) ? 1 : 0);
      const ok = absolute ? n >= below : n >= Math.min(2, fp.length) || n === parts.length;
      if (ok && n > bestLen) {
        best = i;
        bestLen = n;
      }
    }
    return best;
  }

  /**
   * A dotted name → the module file it starts with and the rest (`pkg.mod.Class.meth` →
   * `pkg/mod.py` and `Class.meth`), trying the longest module first. `tail` allows a name that
   * matches the end of a module (`ascii.qdp` → `astropy/io/ascii/qdp.py`) when only a few do.
   */
  resolveDotted(dotted: string, tail = true): { file: number; rest: string; exact: boolean } | undefined {
    const parts = dotted.split(".");
    for (let n = parts.length; n >= 1; n--) {
      const file = this.byModule.get(parts.slice(0, n).join("."));
      if (file !== undefined && (n >= 2 || parts.length === 1))
        return { file, rest: parts.slice(n).join("."), exact: true };
    }
    if (!tail || parts.length < 2 || parts[0].length < 3) return undefined;
    for (let n = parts.length; n >= 2; n--) {
      const suffix = `.${parts.slice(0, n).join(".")}`;
      const hits = new Set(this.modules.filter((m) => m.name.endsWith(suffix)).map((m) => m.file));
      if (hits.size === 1) return { file: [...hits][0], rest: parts.slice(n).join("."), exact: false };
    }
    return undefined;
  }
}
