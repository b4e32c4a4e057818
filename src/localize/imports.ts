import type { RepoFile } from "./repo-files.js";
import type { RepoIndex } from "./repo-index.js";

/**
 * The module graph, read from tree-sitter's imports (python-defs.ts): the repository files a
 * Python file imports. `from .core import run` in `pkg/api.py` is `pkg/core.py` (or `pkg/core/run.py`
 * when `run` is a module), `import pkg.util` is `pkg/util.py`; modules outside the repository are
 * left out, and so is the file itself.
 */
export async function importedFiles(file: RepoFile, index: RepoIndex): Promise<number[]> {
  const outline = await file.doc.pythonOutline();
  const pkg = file.path.split("/").slice(0, -1);
  const self = index.byPath.get(file.path);
  const out = new Set<number>();
  for (const imp of outline?.imports ?? []) {
    const base =
      imp.level > 0
        ? [...pkg.slice(0, pkg.length - (imp.level - 1)), ...(imp.module ? imp.module.split(".") : [])].join(
            ".",
          )
        : imp.module;
    for (const name of [base, ...imp.names.map((n) => `${base}.${n}`)]) {
      const hit = index.resolveDotted(name, false);
      if (hit && hit.file !== self) out.add(hit.file);
    }
  }
  return [...out].sort((a, b) => a - b);
}
