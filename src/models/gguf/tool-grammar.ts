import type { ToolSpec } from "../types.js";

/**
 * The GBNF grammar of a reply that is one call of a known tool, written as JSON:
 * `{"name": "<tool>", "arguments": {...}}`, the arguments following the tool's JSON Schema
 * (its required properties in order, then each optional one or not, in order). The schema parts
 * read: `type` (object, string, integer, number, boolean, array with `items`, `minItems`, `maxItems`), `enum` and `const` of strings,
 * numbers and booleans, `properties`/`required`, `items`; anything else is any JSON value. The
 * arguments are checked again when the reply is parsed (protocols/tool-calls.ts).
 */
export function toolCallGbnf(tools: readonly ToolSpec[]): string {
  if (tools.length === 0) throw new Error("a tool-call grammar needs at least one tool");
  const rules = new Map<string, string>();
  const calls = tools.map((tool, i) => {
    const args = schemaRule(tool.parameters, `t${i}-args`, rules);
    const name = `call-${i}`;
    rules.set(name, `${literal(JSON.stringify(tool.name))} ws "," ws "\\"arguments\\"" ws ":" ws ${args}`);
    return name;
  });
  const head = `root ::= "{" ws "\\"name\\"" ws ":" ws ( ${calls.join(" | ")} ) ws "}"`;
  return [head, ...[...rules].map(([n, body]) => `${n} ::= ${body}`), ...BASE, ""].join("\n");
}

const BASE = [
  "ws ::= [ ]?",
  'string ::= "\\"" char* "\\""',
  'char ::= [^"\\\\\\x00-\\x1f] | "\\\\" ( ["\\\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] )',
  'integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} )',
  'number ::= integer ( "." [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,3} )?',
  'boolean ::= "true" | "false"',
  'value ::= string | number | boolean | "null" | array-any | object-any',
  'array-any ::= "[" ws ( value ( ws "," ws value )* )? ws "]"',
  'object-any ::= "{" ws ( string ws ":" ws value ( ws "," ws string ws ":" ws value )* )? ws "}"',
];

/** A GBNF string literal of `text`. */
function literal(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The rule (a name or an inline expression) of values of `schema`; named rules go into `rules`. */
function schemaRule(schema: unknown, name: string, rules: Map<string, string>): string {
  if (!isRecord(schema)) return "value";
  const choices = "const" in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : null;
  if (choices) {
    const lits = choices.filter((c) => ["string", "number", "boolean"].includes(typeof c));
    if (lits.length === 0) return "value";
    return `( ${lits.map((c) => literal(JSON.stringify(c))).join(" | ")} )`;
  }
  switch (schema.type) {
    case "string":
      return "string";
    case "integer":
      return "integer";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array": {
      const item = schemaRule(schema.items, `${name}-item`, rules);
      const min = typeof schema.minItems === "number" ? Math.max(0, Math.floor(schema.minItems)) : 0;
      const max = typeof schema.maxItems === "number" ? Math.floor(schema.maxItems) : null;
      const more =
        max === null ? `{${Math.max(0, min - 1)},}` : `{${Math.max(0, min - 1)},${Math.max(0, max - 1)}}`;
      const items = `${item} ( ws "," ws ${item} )${more}`;
      rules.set(name, `"[" ws ${min > 0 ? items : `( ${items} )?`} ws "]"`);
      return name;
    }
    case "object":
      return objectRule(schema, name, rules);
    default:
      return "value";
  }
}

function objectRule(schema: Record<string, unknown>, name: string, rules: Map<string, string>): string {
  const props = isRecord(schema.properties) ? Object.entries(schema.properties) : [];
  if (props.length === 0) {
    rules.set(name, "object-any");
    return name;
  }
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === "string") : [],
  );
  const pair = ([key, sub]: [string, unknown], i: number) =>
    `${literal(JSON.stringify(key))} ws ":" ws ${schemaRule(sub, `${name}-p${i}`, rules)}`;
  const pairs = props.map((p, i) => ({ key: p[0], text: pair(p, i) }));
  const must = pairs.filter((p) => required.has(p.key));
  const may = pairs.filter((p) => !required.has(p.key));
  const tail = (from: number) =>
    may
      .slice(from)
      .map((p) => `( ws "," ws ${p.text} )?`)
      .join(" ");
  let body: string;
  if (must.length > 0)
    body = [must.map((p) => p.text).join(' ws "," ws '), tail(0)].filter(Boolean).join(" ");
  else body = `( ${may.map((p, i) => [p.text, tail(i + 1)].filter(Boolean).join(" ")).join(" | ")} )?`;
  rules.set(name, `"{" ws ${body} ws "}"`);
  return name;
}
