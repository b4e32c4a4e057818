import { parse, Template, tokenize } from "@huggingface/jinja";
import { closest } from "./closest.js";
import { ConfigError } from "./errors.js";

/**
 * Jinja templates through @huggingface/jinja, made strict: before rendering, every variable the
 * template reads (in any branch) must be in the context, and attribute paths into context objects
 * must exist. `x is defined` and `x | default(...)` stay lenient, as in Jinja. Whitespace follows
 * Python Jinja's defaults (no trim_blocks / lstrip_blocks).
 */
export class TemplateError extends ConfigError {}

const GLOBALS = new Set([
  "true",
  "false",
  "none",
  "True",
  "False",
  "None",
  "range",
  "raise_exception",
  "strftime_now",
  "namespace",
  "loop",
  "caller",
]);

interface Node {
  type: string;
  [key: string]: unknown;
}

function isNode(v: unknown): v is Node {
  return typeof v === "object" && v !== null && typeof (v as Node).type === "string";
}

function children(node: Node): Node[] {
  const out: Node[] = [];
  const add = (v: unknown) => {
    if (isNode(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach(add);
    else if (v instanceof Map)
      for (const [k, val] of v) {
        add(k);
        add(val);
      }
  };
  for (const [k, v] of Object.entries(node)) if (k !== "type" && k !== "operator") add(v);
  return out;
}

/** Names a template binds itself (set, for, macro arguments). */
function boundNames(root: Node): Set<string> {
  const names = new Set<string>();
  const bindTarget = (t: unknown) => {
    if (!isNode(t)) return;
    if (t.type === "Identifier") names.add(t.value as string);
    else if (t.type === "TupleLiteral" || t.type === "ArrayLiteral")
      (t.value as unknown[]).forEach(bindTarget);
    else if (t.type === "KeywordArgumentExpression") bindTarget(t.key);
  };
  const visit = (n: Node) => {
    if (n.type === "Set") bindTarget(n.assignee);
    if (n.type === "For") bindTarget(n.loopvar);
    if (n.type === "Macro") {
      bindTarget(n.name);
      (n.args as unknown[]).forEach(bindTarget);
    }
    if (n.type === "CallStatement" && Array.isArray(n.callerArgs)) n.callerArgs.forEach(bindTarget);
    children(n).forEach(visit);
  };
  visit(root);
  return names;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Problems found statically: undefined variables and missing attributes of context objects. */
export function findUndefined(root: Node, context: Record<string, unknown>): string[] {
  const bound = boundNames(root);
  const problems = new Set<string>();
  const known = (name: string) => name in context || bound.has(name) || GLOBALS.has(name);

  const checkMember = (n: Node, isCallee: boolean) => {
    const props: string[] = [];
    let cur: Node = n;
    while (
      cur.type === "MemberExpression" &&
      !cur.computed &&
      isNode(cur.property) &&
      cur.property.type === "Identifier"
    ) {
      props.unshift(cur.property.value as string);
      cur = cur.object as Node;
    }
    if (cur.type !== "Identifier" || bound.has(cur.value as string)) return false;
    let value: unknown = context[cur.value as string];
    let path = cur.value as string;
    for (let i = 0; i < props.length; i++) {
      if (!isPlainObject(value)) return false;
      if (!(props[i] in value)) {
        if (isCallee && i === props.length - 1) return false;
        problems.add(`${path}.${props[i]} (${path} has: ${Object.keys(value).join(", ") || "nothing"})`);
        return true;
      }
      value = value[props[i]];
      path = `${path}.${props[i]}`;
    }
    return false;
  };

  const visitAll = (nodes: Node[], lenient: boolean): void => {
    for (const n of nodes) visit(n, lenient);
  };
  const visit = (n: Node, lenient: boolean, isCallee = false): void => {
    switch (n.type) {
      case "Identifier":
        if (!lenient && !known(n.value as string)) problems.add(n.value as string);
        return;
      case "MemberExpression":
        if (!lenient) checkMember(n, isCallee);
        visit(n.object as Node, lenient);
        if (n.computed) visit(n.property as Node, lenient);
        return;
      case "TestExpression": {
        const test = (n.test as Node).value as string;
        visit(n.operand as Node, lenient || test === "defined" || test === "undefined");
        return;
      }
      case "FilterExpression": {
        const f = n.filter as Node;
        const name = (f.type === "CallExpression" ? (f.callee as Node).value : f.value) as string;
        visit(n.operand as Node, lenient || name === "default" || name === "d");
        if (f.type === "CallExpression") visitAll(f.args as Node[], lenient);
        return;
      }
      case "FilterStatement": {
        const f = n.filter as Node;
        if (f.type === "CallExpression") visitAll(f.args as Node[], lenient);
        visitAll(n.body as Node[], lenient);
        return;
      }
      case "CallExpression":
        visit(n.callee as Node, lenient, true);
        visitAll(n.args as Node[], lenient);
        return;
      case "KeywordArgumentExpression":
        visit(n.value as Node, lenient);
        return;
      case "Set":
        if (isNode(n.assignee) && n.assignee.type !== "Identifier" && n.assignee.type !== "TupleLiteral")
          visit(n.assignee, lenient);
        if (isNode(n.value)) visit(n.value, lenient);
        visitAll(n.body as Node[], lenient);
        return;
      case "For":
        visit(n.iterable as Node, lenient);
        visitAll(n.body as Node[], lenient);
        visitAll(n.defaultBlock as Node[], lenient);
        return;
      case "Macro":
        for (const a of n.args as Node[])
          if (a.type === "KeywordArgumentExpression") visit(a.value as Node, lenient);
        visitAll(n.body as Node[], lenient);
        return;
      default:
        visitAll(children(n), lenient);
    }
  };
  visit(root, false);
  return [...problems];
}

/** A parsed template that renders strictly. */
export class StrictTemplate {
  private readonly template: Template;

  constructor(
    readonly source: string,
    readonly name: string,
  ) {
    try {
      this.template = new Template("");
      this.template.parsed = parse(tokenize(source, { lstrip_blocks: false, trim_blocks: false }));
    } catch (err) {
      const msg = (err as Error).message;
      const detail = msg.includes("Cannot read properties of undefined")
        ? "unexpected end of template (is a {% if %}, {% for %} or {% set %} block left open?)"
        : msg;
      throw new TemplateError(`template ${name} has a syntax error: ${detail}`);
    }
  }

  /** Renders with `context`; throws TemplateError naming undefined variables and what is available. */
  render(context: Record<string, unknown>): string {
    const problems = findUndefined(this.template.parsed as unknown as Node, context);
    if (problems.length > 0) {
      const available = Object.keys(context).sort();
      const lines = problems.map((p) => {
        const hint = p.includes(".") ? undefined : closest(p, available);
        return `  - ${p}${hint ? ` (did you mean ${hint}?)` : ""}`;
      });
      throw new TemplateError(
        `template ${this.name} uses undefined variables:\n${lines.join("\n")}\n  available: ${available.join(", ")}`,
      );
    }
    try {
      return this.template.render(context);
    } catch (err) {
      throw new TemplateError(`template ${this.name} failed to render: ${(err as Error).message}`);
    }
  }
}
