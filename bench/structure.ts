import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import ts from "typescript";
import { dataPaths } from "./data-paths.js";
import { sourceRoot, tsFiles } from "./source-files.js";

/**
 * The shape of src/: its files, the import graph between them (runtime imports only: `import
 * type` and type-only specifiers are erased and cannot make a cycle), the cycles in that graph,
 * the same at the level of folders (each folder one concept, dependencies pointing down), and the
 * longest functions. `npm run bench -- --only structure` prints it; test/structure/imports.unit.test.ts
 * keeps both graphs free of cycles.
 */

/** Whether an import or export declaration is kept at run time. */
function runtimeImport(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const c = node.importClause;
    if (!c) return true; // a bare import runs the module
    if (c.isTypeOnly) return false;
    if (c.name) return true;
    const b = c.namedBindings;
    if (!b || ts.isNamespaceImport(b)) return true;
    return b.elements.some((e) => !e.isTypeOnly);
  }
  if (node.isTypeOnly) return false;
  const c = node.exportClause;
  return !c || !ts.isNamedExports(c) || c.elements.some((e) => !e.isTypeOnly);
}

export interface Structure {
  files: number;
  lines: number;
  /** file -> the files it imports at run time (relative to src/). Dynamic `import()` is left out. */
  graph: Map<string, string[]>;
  functions: Array<{ where: string; name: string; lines: number }>;
}

/** Reads src/ once; with `types`, type-only imports count as edges too. */
export function readStructure(root = sourceRoot(), types = false): Structure {
  const graph = new Map<string, string[]>();
  const functions: Structure["functions"] = [];
  let lines = 0;
  for (const file of tsFiles(root)) {
    const text = readFileSync(file, "utf8");
    lines += text.split("\n").length;
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const rel = relative(root, file);
    const deps: string[] = [];
    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        const spec = (node.moduleSpecifier as ts.StringLiteral).text;
        if (spec.startsWith(".") && (types || runtimeImport(node)))
          deps.push(relative(root, resolve(dirname(file), spec.replace(/\.js$/, ".ts"))));
      }
      if (
        (ts.isFunctionDeclaration(node) ||
          ts.isMethodDeclaration(node) ||
          ts.isArrowFunction(node) ||
          ts.isFunctionExpression(node)) &&
        node.body
      ) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = sf.getLineAndCharacterOfPosition(node.end).line;
        const named = (node as { name?: ts.Node }).name;
        const parent = node.parent;
        const name = named
          ? named.getText()
          : ts.isVariableDeclaration(parent)
            ? parent.name.getText()
            : ts.isPropertyAssignment(parent)
              ? parent.name.getText()
              : "(anonymous)";
        functions.push({ where: `${rel}:${start + 1}`, name, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    graph.set(rel, [...new Set(deps)]);
  }
  functions.sort((a, b) => b.lines - a.lines);
  return { files: graph.size, lines, graph, functions };
}

/** The strongly connected components of more than one file (and files importing themselves). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return out;
}

/** A file's folder relative to src/ (`batch/run-folder.ts` -> `batch`; a file at the top -> `.`). */
export function folderOf(file: string): string {
  const d = dirname(file);
  return d === "" ? "." : d;
}

/**
 * The folder graph: folder -> the other folders its files import, and for each such pair the
 * file imports that make it (`from -> to`). A subfolder is a folder of its own (`models/gguf`).
 */
export function folderGraph(graph: Map<string, string[]>): {
  graph: Map<string, string[]>;
  imports: Map<string, string[]>;
} {
  const out = new Map<string, Set<string>>();
  const imports = new Map<string, string[]>();
  for (const [file, deps] of graph) {
    const a = folderOf(file);
    if (!out.has(a)) out.set(a, new Set());
    for (const dep of deps) {
      if (!graph.has(dep)) continue;
      const b = folderOf(dep);
      if (a === b) continue;
      out.get(a)?.add(b);
      const key = `${a} -> ${b}`;
      imports.set(key, [...(imports.get(key) ?? []), `${file} -> ${dep}`]);
    }
  }
  return { graph: new Map([...out].map(([k, v]) => [k, [...v].sort()])), imports };
}

/**
 * Each folder's layer in an acyclic folder graph: 0 for a folder that imports no other, else one
 * above the highest folder it imports. Null when the folders form a cycle (there are no layers).
 */
export function folderLayers(folders: Map<string, string[]>): Map<string, number> | null {
  if (importCycles(folders).length > 0) return null;
  const layer = new Map<string, number>();
  const of = (f: string): number => {
    const known = layer.get(f);
    if (known !== undefined) return known;
    const deps = (folders.get(f) ?? []).filter((d) => folders.has(d));
    const l = deps.length === 0 ? 0 : 1 + Math.max(...deps.map(of));
    layer.set(f, l);
    return l;
  };
  for (const f of folders.keys()) of(f);
  return layer;
}

/** The layers bottom first, each a sorted list of folders (`0: util, config ...`). */
function layerLines(layers: Map<string, number> | null): string[] {
  if (!layers) return ["(none: the folders form a cycle)"];
  const by = new Map<number, string[]>();
  for (const [f, l] of layers) by.set(l, [...(by.get(l) ?? []), f]);
  return [...by.keys()].sort((a, b) => a - b).map((l) => `${l}: ${(by.get(l) ?? []).sort().join(", ")}`);
}

/** The bench section: counts, cycles, the ten longest functions and the outcome's data paths. */
export async function benchStructure(): Promise<Record<string, unknown>> {
  const s = readStructure();
  const withTypes = readStructure(undefined, true);
  const folders = folderGraph(withTypes.graph).graph;
  return {
    files: s.files,
    lines: s.lines,
    folders: folders.size,
    import_cycles: importCycles(s.graph),
    // type-only imports vanish at run time, but a cycle through them still ties concepts together
    import_cycles_with_types: importCycles(withTypes.graph),
    folder_cycles: importCycles(folderGraph(s.graph).graph),
    folder_cycles_with_types: importCycles(folders),
    // bottom first: a folder imports only folders of lower layers (type-only imports included)
    folder_layers: layerLines(folderLayers(folders)),
    longest_functions: s.functions.slice(0, 10).map((f) => `${f.lines} ${f.name} (${f.where})`),
    // the figures docs/architecture.md states for the path of one outcome (data-paths.ts)
    data_paths: dataPaths().map((p) => ({
      name: p.name,
      files: p.files.length,
      reshapes: p.reshapes,
      steps: p.steps,
    })),
  };
}
