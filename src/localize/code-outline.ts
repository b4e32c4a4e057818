import { type Node, Query } from "web-tree-sitter";
import { grammar, parserFor } from "./lang/grammars.js";
import type { CodeImport, ImportKind, LanguageSpec } from "./lang/spec.js";

/**
 * Definitions and imports of a source file in any language of lang/ but Python (python-defs.ts),
 * read with the language's tree-sitter grammar and two queries of its own (lang/*.ts).
 *
 * A query marks a definition node `@definition.class`, `@definition.function` or
 * `@definition.variable` with its name as `@name` (and, for a method defined outside its type,
 * the type as `@receiver`: Go's `func (s *Store) Get`, C++'s `void Buffer::grow`); `@scope` with
 * `@name` is a block that names what it holds without being a definition (Rust's `impl Lexer`).
 * Imports are `@import.path` (a file path, relative to the importing file: `#include "x.h"`,
 * `require_relative`), `@import.module` (a name the language resolves: a JS specifier, a Go import
 * path, a Java class), `@import.mod` (Rust's `mod name;`).
 */

/** A definition: the same shape as Python's (python-defs.ts PyDef). */
export interface CodeDef {
  /** The bare name (`grow`). */
  name: string;
  /** The names of the blocks holding it and its own, joined by dots (`fmt.Buffer.grow`). */
  qualname: string;
  /** `class` for classes, structs, interfaces, traits, enums, type aliases and modules or namespaces. */
  kind: "class" | "function" | "variable";
  /** 1-based first and last lines. */
  line: number;
  endLine: number;
  /** Defined inside a function (a helper of it, not something callers name). */
  local: boolean;
}

export interface CodeOutline {
  defs: CodeDef[];
  imports: CodeImport[];
}

interface Entry {
  start: number;
  end: number;
  line: number;
  endLine: number;
  name: string;
  kind: CodeDef["kind"] | "scope";
  receiver?: string;
}

const queries = new Map<LanguageSpec, Promise<{ defs: Query; imports: Query }>>();

function queriesOf(spec: LanguageSpec): Promise<{ defs: Query; imports: Query }> {
  let q = queries.get(spec);
  if (!q) {
    q = grammar(spec.grammar).then((language) => ({
      defs: new Query(language, spec.defs),
      imports: new Query(language, spec.imports),
    }));
    queries.set(spec, q);
    q.catch(() => queries.delete(spec));
  }
  return q;
}

const KIND_ORDER = { scope: 0, variable: 1, class: 2, function: 2 } as const;

function entriesOf(root: Node, query: Query, spec: LanguageSpec): Entry[] {
  const byNode = new Map<string, Entry>();
  for (const m of query.matches(root)) {
    let def: Node | undefined;
    let kind: Entry["kind"] | undefined;
    let name: string | undefined;
    let receiver: string | undefined;
    for (const c of m.captures) {
      if (c.name === "name") name = spec.nameOf ? spec.nameOf(c.node.text) : c.node.text;
      else if (c.name === "receiver") receiver = c.node.text.replace(/::/g, ".");
      else if (c.name === "scope") {
        def = c.node;
        kind = "scope";
      } else if (c.name.startsWith("definition.")) {
        def = c.node;
        kind = c.name.slice("definition.".length) as Entry["kind"];
      }
    }
    if (!def || !kind || !name) continue;
    const entry: Entry = {
      start: def.startIndex,
      end: def.endIndex,
      line: def.startPosition.row + 1,
      endLine: def.endPosition.row + 1,
      name,
      kind,
      receiver,
    };
    // one node matched by several patterns (a `const f = () => ...` is a function and a variable):
    // the match that says more wins
    const key = `${entry.start}:${entry.end}:${name}`;
    const prev = byNode.get(key);
    if (
      !prev ||
      KIND_ORDER[kind] > KIND_ORDER[prev.kind] ||
      (KIND_ORDER[kind] === KIND_ORDER[prev.kind] && receiver && !prev.receiver)
    )
      byNode.set(key, entry);
  }
  return [...byNode.values()].sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Qualified names from the nesting of the entries; variables inside functions are left out. */
function defsOf(entries: Entry[]): CodeDef[] {
  const out: CodeDef[] = [];
  const open: Entry[] = [];
  for (const e of entries) {
    while (open.length > 0) {
      const top = open[open.length - 1];
      const holds = top.start <= e.start && e.end <= top.end && !(top.start === e.start && top.end === e.end);
      if (holds) break;
      open.pop();
    }
    const local = open.some((o) => o.kind === "function");
    if (e.kind !== "scope" && !(e.kind === "variable" && local)) {
      const path = [...open.map((o) => o.name), ...(e.receiver ? [e.receiver] : []), e.name];
      out.push({
        name: e.name,
        qualname: path.join("."),
        kind: e.kind,
        line: e.line,
        endLine: e.endLine,
        local,
      });
    }
    if (e.kind !== "variable") open.push(e);
  }
  return out;
}

function importsOf(root: Node, query: Query, spec: LanguageSpec): CodeImport[] {
  const out: CodeImport[] = [];
  const seen = new Set<string>();
  for (const c of query.captures(root)) {
    if (!c.name.startsWith("import.")) continue;
    const kind = c.name.slice("import.".length) as ImportKind;
    const specs = spec.importSpecs ? spec.importSpecs(c.node.text, kind) : [unquote(c.node.text)];
    for (const s of specs) {
      const key = `${kind}\0${s}`;
      if (s === "" || seen.has(key)) continue;
      seen.add(key);
      out.push({ kind, spec: s });
    }
  }
  return out;
}

/** A string literal's content (`"x"`, `'x'`, `<x>`, `` `x` ``), or the text as it is. */
export function unquote(text: string): string {
  const m = /^(["'`<])([\s\S]*)([>"'`])$/.exec(text.trim());
  return m ? m[2] : text.trim();
}

/**
 * The outline of `source` in the language of `spec`, or null when its grammar cannot parse it at
 * all or reading the tree fails: one odd file leaves the ranking without its definitions, not
 * without a ranking. (A grammar that cannot be loaded rejects: that is the installation's fault.)
 */
export async function codeOutline(spec: LanguageSpec, source: string): Promise<CodeOutline | null> {
  const q = await queriesOf(spec);
  const p = parserFor(await grammar(spec.grammar));
  let tree: ReturnType<typeof p.parse> = null;
  try {
    tree = p.parse(source);
    if (!tree) return null;
    return {
      defs: defsOf(entriesOf(tree.rootNode, q.defs, spec)),
      imports: importsOf(tree.rootNode, q.imports, spec),
    };
  } catch {
    return null;
  } finally {
    tree?.delete();
  }
}
