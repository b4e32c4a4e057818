import type { ChatMessage } from "../../models/types.js";
import { type ParseResult, type Protocol, textOf } from "./types.js";

/**
 * The text protocol: a reply must hold exactly one fenced block tagged `tag`.
 *
 * Decisions (documented in docs/protocols.md and tested):
 * - CRLF and lone CR line endings in the reply are read as LF, so no `\r` reaches bash.
 * - The opening fence is ```TAG with optional spaces/tabs after it; the closing fence is a line of
 *   exactly three backticks, optionally followed by spaces/tabs (indented fences are not fences).
 * - Inside a block, heredoc bodies (`<< WORD`, `<< 'WORD'`, `<< "WORD"`, `<<- WORD`) are copied
 *   verbatim up to their terminator line, so a command that writes Markdown containing a line of
 *   three backticks does not end the block early.
 * - The command is the text between the fences, without the final newline.
 */
export interface FencedBlock {
  tag: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  closed: boolean;
}

const OPEN = /^```([^\s`]*)[ \t]*$/;
const CLOSE = /^```[ \t]*$/;
const HEREDOC = /(?<!<)<<(?!<)(-?)[ \t]*(?:'([^']+)'|"([^"]+)"|\\?([A-Za-z_][A-Za-z0-9_]*))/g;

/** Every fenced block of `text`, in order. */
export function findFencedBlocks(text: string): FencedBlock[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: FencedBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = OPEN.exec(lines[i]);
    if (!open) {
      i++;
      continue;
    }
    const start = i;
    const body: string[] = [];
    const pending: Array<{ word: string; tabs: boolean }> = [];
    let closed = false;
    for (i = i + 1; i < lines.length; i++) {
      const line = lines[i];
      if (pending.length > 0) {
        body.push(line);
        const h = pending[0];
        if ((h.tabs ? line.replace(/^\t+/, "") : line) === h.word) pending.shift();
        continue;
      }
      if (CLOSE.test(line)) {
        closed = true;
        i++;
        break;
      }
      body.push(line);
      for (const m of line.matchAll(HEREDOC))
        pending.push({ word: m[2] ?? m[3] ?? m[4], tabs: m[1] === "-" });
    }
    blocks.push({ tag: open[1], body: body.join("\n"), line: start + 1, closed });
  }
  return blocks;
}

export function createBackticksProtocol(tag: string, actionRegex: string | null): Protocol {
  const fence = `\`\`\`${tag}`;
  const parse = (message: ChatMessage): ParseResult => {
    const text = textOf(message);
    if (actionRegex !== null) {
      const matches = [...text.replace(/\r\n?/g, "\n").matchAll(new RegExp(actionRegex, "gs"))];
      if (matches.length === 1)
        return { ok: true, actions: [{ kind: "command", command: matches[0][1] ?? "" }] };
      return {
        ok: false,
        error: `expected exactly one action matching ${actionRegex}, found ${matches.length}.`,
      };
    }
    const blocks = findFencedBlocks(text);
    const ours = blocks.filter((b) => b.tag === tag);
    if (ours.length === 1 && ours[0].closed)
      return { ok: true, actions: [{ kind: "command", command: ours[0].body }] };
    if (ours.length === 1)
      return {
        ok: false,
        error: `the ${fence} block opened on line ${ours[0].line} is never closed with a line of three backticks.`,
      };
    if (ours.length === 0) {
      const others = blocks.map((b) => (b.tag ? `\`\`\`${b.tag}` : "``` (no tag)"));
      const seen =
        others.length > 0
          ? ` It has ${others.length} other fenced block(s): ${others.join(", ")}; only ${fence} blocks run.`
          : "";
      return { ok: false, error: `found no ${fence} block in your reply.${seen}` };
    }
    const lines = ours.map((b) => b.line).join(", ");
    return {
      ok: false,
      error: `found ${ours.length} ${fence} blocks (opening on lines ${lines}); put exactly one in each reply, joining commands with && if needed.`,
    };
  };
  return { name: "backticks", parse };
}
