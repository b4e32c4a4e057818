import { createHash } from "node:crypto";
import type { Node } from "web-tree-sitter";
import { parser } from "../localize/python-defs.js";

/** Nodes below this depth are not walked (a hostile file cannot exhaust the stack). */
const MAX_DEPTH = 500;

function shape(node: Node, depth: number, out: string[]): boolean {
  if (depth > MAX_DEPTH) return false;
  if (node.type === "comment") return true;
  const kids = node.namedChildren.filter((c) => c.type !== "comment");
  if (kids.length === 0) {
    out.push(`(${node.type} ${JSON.stringify(node.text)})`);
    return true;
  }
  // Anonymous children (operators, keywords) carry meaning too: `a + b` and `a - b`.
  const ops = node.children
    .filter((c) => !c.isNamed)
    .map((c) => c.type)
    .join(" ");
  out.push(`(${node.type}${ops ? ` [${ops}]` : ""}`);
  for (const k of kids) if (!shape(k, depth + 1, out)) return false;
  out.push(")");
  return true;
}

/**
 * A key of Python source that is equal for sources with the same syntax tree: comments, blank
 * lines, spacing and line breaks inside brackets do not count. Null when the source does not
 * parse cleanly (then the text key alone decides).
 */
export async function pythonAstKey(source: string): Promise<string | null> {
  const p = await parser();
  const tree = p.parse(source);
  if (!tree) return null;
  try {
    if (tree.rootNode.hasError) return null;
    const out: string[] = [];
    if (!shape(tree.rootNode, 0, out)) return null;
    return createHash("sha256").update(out.join("")).digest("hex");
  } finally {
    tree.delete();
  }
}
