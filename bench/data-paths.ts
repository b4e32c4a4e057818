import { relative } from "node:path";
import ts from "typescript";
import { sourceRoot, tsFiles } from "./source-files.js";

/**
 * The path a piece of data takes through src/, measured rather than counted by hand (the figures
 * docs/architecture.md states). A path names a type (`TaskOutcome`), the function that makes it and
 * the function that writes it; the bench finds the shortest chain of functions between the two in
 * the call graph (a call joins caller and callee, a closure joins the function it sits in), going only
 * through functions that take or give the type (a parameter or a return value of that type, or of
 * a type with a field of it). It reports the files that chain crosses and the reshapes on it: a
 * function that takes the type and gives another shape, and an object literal that spreads it into
 * a new one.
 */

export interface PathSpec {
  /** What the path is, in words. */
  name: string;
  /** The type carried (its declared name). */
  type: string;
  /**
   * Legs, each a list of functions (`f`, `Class.method`, `Interface.member`) the value passes in
   * order, joined by calls; between two legs it is handed over another way (a promise a callback
   * resolves, a message through the queue), which no call graph shows.
   */
  legs: string[][];
}

export interface PathFigures {
  name: string;
  /** The functions of the chain, `name (file)`, from the maker to the writer; `(handed over)` between legs. */
  steps: string[];
  /** The files the chain crosses, in order. */
  files: string[];
  /** The reshapes on the chain: `name (file): how`. */
  reshapes: string[];
}

/** The paths docs/architecture.md states figures for. */
export const PATHS: PathSpec[] = [
  {
    name: "one instance of a batch: the outcome from runTask to its preds.json entry",
    type: "TaskOutcome",
    legs: [["runTask", "RunFolder.accept", "predOf"]],
  },
  {
    name: "with --queue, on the worker: the outcome from runTask to the result it sends",
    type: "TaskOutcome",
    legs: [["runTask", "JobProcessor.deliverOnce"]],
  },
  {
    name: "with --queue, on the coordinator: the result received to its preds.json entry",
    type: "TaskOutcome",
    legs: [
      ["QueueCoordinator.onResult", "CoordinatorState.result"],
      ["QueueCoordinator.run", "RunFolder.accept", "predOf"],
    ],
  },
];

type FnNode = ts.FunctionLikeDeclaration & { body?: ts.Node };

const isFn = (n: ts.Node): n is FnNode =>
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isArrowFunction(n) ||
  ts.isFunctionExpression(n) ||
  ts.isConstructorDeclaration(n);

/** `name` of a function as the specs write it: `f`, `Class.method`, or the variable an arrow is assigned to. */
function nameOf(fn: FnNode): string {
  const own = fn.name && !ts.isComputedPropertyName(fn.name) ? fn.name.getText() : undefined;
  if ((ts.isMethodDeclaration(fn) || ts.isConstructorDeclaration(fn)) && ts.isClassLike(fn.parent))
    return `${fn.parent.name?.getText() ?? "(class)"}.${own ?? "constructor"}`;
  if (own && ts.isInterfaceDeclaration(fn.parent)) return `${fn.parent.name.getText()}.${own}`;
  if (own) return own;
  const p = fn.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) {
    const base = p.name.getText();
    return ts.isPropertyDeclaration(p) && ts.isClassLike(p.parent)
      ? `${p.parent.name?.getText()}.${base}`
      : base;
  }
  return "(closure)";
}

/** Whether `type` is the named type, or holds it (a union, Promise<...>, an array, a field `depth` levels down). */
function mentions(
  checker: ts.TypeChecker,
  type: ts.Type,
  name: string,
  depth: number,
  seen = new Set<ts.Type>(),
): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  if (type.aliasSymbol?.name === name || type.getSymbol()?.name === name) return true;
  if (type.isUnionOrIntersection()) return type.types.some((t) => mentions(checker, t, name, depth, seen));
  const args = [
    ...(type.aliasTypeArguments ?? []),
    ...((type as ts.TypeReference).target ? checker.getTypeArguments(type as ts.TypeReference) : []),
  ];
  if (args.some((t) => mentions(checker, t, name, depth, seen))) return true;
  if (depth > 0 && type.flags & ts.TypeFlags.Object)
    return type
      .getProperties()
      .some((p) => mentions(checker, checker.getTypeOfSymbol(p), name, depth - 1, seen));
  return false;
}

/** Whether `type` is the named type itself at its top (possibly in a Promise, or with null/undefined). */
function isItself(checker: ts.TypeChecker, type: ts.Type, name: string): boolean {
  if (type.aliasSymbol?.name === name || type.getSymbol()?.name === name) return true;
  if (type.isUnion())
    return type.types.every(
      (t) =>
        t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void) ||
        isItself(checker, t, name),
    );
  if (["Promise", "PromiseLike"].includes(type.getSymbol()?.name ?? ""))
    return checker.getTypeArguments(type as ts.TypeReference).some((t) => isItself(checker, t, name));
  return false;
}

interface Node {
  fn: FnNode;
  name: string;
  file: string;
  carries: boolean;
  /** Takes the type and gives another shape. */
  reshape: string | null;
  spreads: string[];
  /** Functions this one calls (an interface member "calls" its implementations). */
  callees: Set<Node>;
  callers: Set<Node>;
  /** The function it sits in, and the closures in it. */
  near: Set<Node>;
}

/** The figures of each path in `specs` (the program is type-checked once: several seconds). */
export function dataPaths(specs: PathSpec[] = PATHS, root = sourceRoot()): PathFigures[] {
  const program = ts.createProgram(tsFiles(root), {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  return [...new Set(specs.map((s) => s.type))].flatMap((type) => {
    const nodes = graphFor(program, checker, type, root);
    return specs.filter((s) => s.type === type).map((s) => figuresOf(s, nodes));
  });
}

function graphFor(
  program: ts.Program,
  checker: ts.TypeChecker,
  type: string,
  root: string,
): Map<FnNode, Node> {
  const nodes = new Map<FnNode, Node>();
  const files = program.getSourceFiles().filter((f) => f.fileName.startsWith(root));
  const nodeOf = (fn: FnNode, file: string): Node => {
    let n = nodes.get(fn);
    if (n) return n;
    const sig = ts.isPropertySignature(fn as ts.Node)
      ? checker.getTypeAtLocation(fn).getCallSignatures()[0]
      : checker.getSignatureFromDeclaration(fn);
    const params = sig?.getParameters().map((p) => checker.getTypeOfSymbolAtLocation(p, fn)) ?? [];
    const ret = sig ? checker.getReturnTypeOfSignature(sig) : undefined;
    const takes = params.some((t) => mentions(checker, t, type, 0));
    const gives = ret !== undefined && mentions(checker, ret, type, 0);
    const carries =
      takes ||
      gives ||
      params.some((t) => mentions(checker, t, type, 2)) ||
      (ret !== undefined && mentions(checker, ret, type, 2));
    const reshape =
      takes &&
      ret &&
      !isItself(checker, ret, type) &&
      !(ret.flags & (ts.TypeFlags.Void | ts.TypeFlags.Boolean | ts.TypeFlags.String | ts.TypeFlags.Number))
        ? `gives ${checker.typeToString(ret, undefined, ts.TypeFormatFlags.NoTruncation)}`
        : null;
    n = {
      fn,
      name: nameOf(fn),
      file,
      carries,
      reshape,
      spreads: [],
      callees: new Set(),
      callers: new Set(),
      near: new Set(),
    };
    nodes.set(fn, n);
    return n;
  };
  /** The node of a called declaration in src/: a function with a body, or an interface's member. */
  const declNode = (decl: ts.Declaration): Node | undefined => {
    if (!decl.getSourceFile().fileName.startsWith(root)) return undefined;
    const file = relative(root, decl.getSourceFile().fileName);
    if (isFn(decl) && decl.body) return nodeOf(decl, file);
    if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl) || ts.isCallSignatureDeclaration(decl))
      return nodeOf(decl as unknown as FnNode, file);
    return undefined;
  };
  /** The interface members `fn` implements: a class's method of an `implements`, or an object literal's member typed by one. */
  const implemented = (fn: FnNode): Node[] => {
    const named = nameOf(fn).split(".").at(-1) as string;
    let owners: ts.Type[] = [];
    const p = fn.parent;
    if (ts.isClassLike(p))
      owners = (p.heritageClauses ?? [])
        .filter((h) => h.token === ts.SyntaxKind.ImplementsKeyword)
        .flatMap((h) => h.types.map((t) => checker.getTypeAtLocation(t)));
    else if (
      (ts.isPropertyAssignment(p) || ts.isMethodDeclaration(fn)) &&
      ts.isObjectLiteralExpression(ts.isPropertyAssignment(p) ? p.parent : p)
    ) {
      const lit = ts.isPropertyAssignment(p) ? p.parent : p;
      const t = checker.getContextualType(lit as ts.ObjectLiteralExpression);
      if (t) owners = t.isUnion() ? t.types : [t];
    }
    return owners.flatMap((t) =>
      (t.getProperty(named)?.declarations ?? []).flatMap((d) => (d === fn ? [] : (declNode(d) ?? []))),
    );
  };
  for (const sf of files) {
    const file = relative(root, sf.fileName);
    const visit = (node: ts.Node, inside: Node | null): void => {
      let here = inside;
      // a function that holds the value in a variable of its own carries it too
      if (inside && !inside.carries && ts.isVariableDeclaration(node))
        inside.carries = mentions(checker, checker.getTypeAtLocation(node.name), type, 2);
      if (isFn(node) && node.body) {
        here = nodeOf(node, file);
        if (inside) {
          inside.near.add(here);
          here.near.add(inside);
        }
      }
      if (here && (ts.isCallExpression(node) || ts.isNewExpression(node))) {
        const decl = checker.getResolvedSignature(node)?.getDeclaration();
        const target = decl && declNode(decl);
        if (target) call(here, target);
      }
      // an implementation joins the interface member it implements (calls through the interface reach it)
      if (isFn(node) && node.body && here) for (const m of implemented(node)) call(m, here);
      if (here && ts.isSpreadAssignment(node) && ts.isObjectLiteralExpression(node.parent)) {
        const t = checker.getTypeAtLocation(node.expression);
        const made = checker.getContextualType(node.parent) ?? checker.getTypeAtLocation(node.parent);
        if (isItself(checker, t, type) && !isItself(checker, made, type))
          here.spreads.push(
            `spreads ${node.expression.getText()} into a new object (line ${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1})`,
          );
      }
      ts.forEachChild(node, (c) => visit(c, here));
    };
    visit(sf, null);
  }
  return nodes;
}

function call(caller: Node, callee: Node): void {
  if (caller === callee) return;
  caller.callees.add(callee);
  callee.callers.add(caller);
}

function figuresOf(spec: PathSpec, nodes: Map<FnNode, Node>): PathFigures {
  const all = [...nodes.values()];
  const named = (name: string): Node[] => {
    const found = all.filter((n) => n.name === name);
    if (found.length === 0) throw new Error(`data path "${spec.name}": no function named ${name} in src/`);
    return found;
  };
  const chain: Array<Node | null> = [];
  for (const leg of spec.legs) {
    if (chain.length > 0) chain.push(null);
    let from = named(leg[0]);
    chain.push(from[0]);
    for (const stop of leg.slice(1)) {
      const part = shortest(from, new Set(named(stop)));
      if (!part)
        throw new Error(
          `data path "${spec.name}": no chain of calls carrying ${spec.type} from ${chain.at(-1)?.name} to ${stop}`,
        );
      chain.pop();
      chain.push(...part);
      from = [part.at(-1) as Node];
    }
  }
  // an interface's member runs no code: its file is not crossed
  const files: string[] = [];
  for (const n of chain) if (n?.fn.body && !files.includes(n.file)) files.push(n.file);
  const fns = chain.filter((n): n is Node => n !== null);
  return {
    name: spec.name,
    steps: chain.map((n) => (n ? `${n.name} (${n.file})` : "(handed over)")),
    files,
    reshapes: fns.flatMap((n) => [
      ...(n.reshape ? [`${n.name} (${n.file}): ${n.reshape}`] : []),
      ...n.spreads.map((s) => `${n.name} (${n.file}): ${s}`),
    ]),
  };
}

/**
 * The shortest chain from one of `starts` to one of `goals` through functions that carry the type,
 * as data flows: up to callers (a return value) and then down to callees (an argument), never up
 * again; a closure and the function it sits in reach each other either way.
 */
function shortest(starts: Node[], goals: Set<Node>): Node[] | null {
  type State = { n: Node; down: boolean };
  const seen = new Map<string, State | null>();
  const id = new Map<Node, number>();
  const tag = (s: State) => {
    if (!id.has(s.n)) id.set(s.n, id.size);
    return `${id.get(s.n)}:${s.down ? 1 : 0}`;
  };
  const byName = (x: Node, y: Node) => `${x.file}${x.name}`.localeCompare(`${y.file}${y.name}`);
  const queue: State[] = starts.map((n) => ({ n, down: false }));
  for (const s of queue) seen.set(tag(s), null);
  while (queue.length > 0) {
    const s = queue.shift() as State;
    if (goals.has(s.n)) {
      const chain: Node[] = [];
      for (let at: State | null | undefined = s; at; at = seen.get(tag(at))) chain.unshift(at.n);
      return chain;
    }
    const next: State[] = [
      ...(s.down ? [] : [...s.n.callers].sort(byName).map((n) => ({ n, down: false }))),
      ...[...s.n.callees].sort(byName).map((n) => ({ n, down: true })),
      ...[...s.n.near].sort(byName).map((n) => ({ n, down: s.down })),
    ];
    for (const m of next) {
      if (seen.has(tag(m)) || !(m.n.carries || goals.has(m.n))) continue;
      seen.set(tag(m), s);
      queue.push(m);
    }
  }
  return null;
}

/** The table docs/architecture.md holds between its data-paths markers (test/structure keeps them equal). */
export function pathTable(figures: PathFigures[]): string {
  const rows = figures.map(
    (f) =>
      `| ${f.name} | ${f.files.length}: ${f.files.map((x) => `${x}`).join(", ")} | ${f.reshapes.length}: ${f.reshapes
        .map((r) => r.replace(/ \(line \d+\)/, "").replace(/\|/g, "\\|"))
        .join("; ")} |`,
  );
  return ["| path | files crossed | reshapes |", "|---|---|---|", ...rows].join("\n");
}
