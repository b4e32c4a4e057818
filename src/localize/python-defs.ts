import type { Node, Parser } from "web-tree-sitter";
import { grammar, parserFor } from "./lang/grammars.js";

/**
 * Definitions and imports of a Python file, read with tree-sitter's Python grammar (the grammar's
 * own .wasm from the `tree-sitter-python` package, run by `web-tree-sitter`: no native build).
 */

/** A class, function or method, or a name assigned at module or class level. */
export interface PyDef {
  /** The bare name (`method`). */
  name: string;
  /** Dotted path inside the module (`Class.method`, `outer.inner`). */
  qualname: string;
  kind: "class" | "function" | "variable";
  /** 1-based first and last lines (decorators included). */
  line: number;
  endLine: number;
  /** Defined inside a function (a helper of that function, not something callers name). */
  local: boolean;
}

/** One import statement: `from ..a.b import c, d` is `{module: "a.b", level: 2, names: ["c", "d"]}`. */
export interface PyImport {
  module: string;
  level: number;
  names: string[];
}

export interface PythonOutline {
  defs: PyDef[];
  imports: PyImport[];
}

/** The shared Python parser, loaded once per process (also used by src/select/python-ast.ts). */
export async function parser(): Promise<Parser> {
  return parserFor(await grammar({ pkg: "tree-sitter-python", wasm: "tree-sitter-python.wasm" }));
}

function defsIn(block: Node, prefix: string, inClass: boolean, local: boolean, out: PyDef[]): void {
  for (const child of block.namedChildren) {
    let node = child;
    const start = child.startPosition.row + 1;
    if (node.type === "decorated_definition") {
      const inner = node.childForFieldName("definition");
      if (!inner) continue;
      node = inner;
    }
    if (node.type === "function_definition" || node.type === "class_definition") {
      const name = node.childForFieldName("name")?.text;
      if (!name) continue;
      const qualname = prefix ? `${prefix}.${name}` : name;
      out.push({
        name,
        qualname,
        kind: node.type === "class_definition" ? "class" : "function",
        line: start,
        endLine: node.endPosition.row + 1,
        local,
      });
      const body = node.childForFieldName("body");
      const isClass = node.type === "class_definition";
      if (body) defsIn(body, qualname, isClass, local || !isClass, out);
    } else if (node.type === "expression_statement" && (prefix === "" || inClass)) {
      for (const a of node.namedChildren) {
        if (a.type !== "assignment") continue;
        const left = a.childForFieldName("left");
        if (left?.type === "identifier")
          out.push({
            name: left.text,
            qualname: prefix ? `${prefix}.${left.text}` : left.text,
            kind: "variable",
            line: start,
            endLine: node.endPosition.row + 1,
            local,
          });
      }
    } else if (
      node.type === "if_statement" ||
      node.type === "try_statement" ||
      node.type === "with_statement" ||
      node.type === "block" ||
      node.type === "else_clause" ||
      node.type === "elif_clause" ||
      node.type === "except_clause" ||
      node.type === "finally_clause"
    ) {
      // definitions made conditionally (`if PY3: def f(): ...`, `try: ... except ImportError: ...`)
      defsIn(node, prefix, inClass, local, out);
    }
  }
}

function importsIn(root: Node): PyImport[] {
  const out: PyImport[] = [];
  const visit = (n: Node, depth: number) => {
    if (n.type === "import_statement") {
      for (const c of n.namedChildren) {
        const name = c.type === "aliased_import" ? c.childForFieldName("name") : c;
        if (name?.type === "dotted_name") out.push({ module: name.text, level: 0, names: [] });
      }
    } else if (n.type === "import_from_statement") {
      const mod = n.childForFieldName("module_name");
      let module = "";
      let level = 0;
      if (mod?.type === "relative_import") {
        for (const c of mod.children) {
          if (c.type === "import_prefix") level = c.text.length;
          else if (c.type === "dotted_name") module = c.text;
        }
      } else if (mod) module = mod.text;
      const names: string[] = [];
      for (const c of n.childrenForFieldName("name")) {
        const nm = c.type === "aliased_import" ? c.childForFieldName("name") : c;
        if (nm) names.push(nm.text);
      }
      out.push({ module, level, names });
    } else if (depth < 3) {
      // imports inside functions or `if TYPE_CHECKING:` blocks, a few levels down
      for (const c of n.namedChildren) visit(c, depth + 1);
    }
  };
  for (const c of root.namedChildren) visit(c, 0);
  return out;
}

/** The outline of Python source, or null when tree-sitter cannot parse it at all. */
export async function pythonOutline(source: string): Promise<PythonOutline | null> {
  const p = await parser();
  const tree = p.parse(source);
  if (!tree) return null;
  try {
    const defs: PyDef[] = [];
    defsIn(tree.rootNode, "", false, false, defs);
    return { defs, imports: importsIn(tree.rootNode) };
  } finally {
    tree.delete();
  }
}
