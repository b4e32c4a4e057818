import { compileActionRegex } from "../../config/mini-compat.js";
import type { ChatMessage } from "../../models/types.js";
import { fencedForm } from "./expected-form.js";
import { fencedActionGbnf, fencedActionRegex } from "./fenced-constraint.js";
import { nulProblem } from "./nul.js";
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
 *   three backticks does not end the block early. A heredoc that is never terminated does not
 *   swallow the closing fence: the block then ends at the first closing fence after its start.
 * - The command is the text between the fences, without the final newline.
 */
export interface FencedBlock {
  tag: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** 0-based index of the first line after the block (its closing fence included). */
  end: number;
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
    let block = readBlock(lines, start, true);
    // A heredoc left open would run to the end of the reply: read the block again without heredocs.
    if (!block.closed && block.heredocs) block = readBlock(lines, start, false);
    blocks.push({
      tag: open[1],
      body: block.body.join("\n"),
      line: start + 1,
      end: block.next,
      closed: block.closed,
    });
    i = block.next;
  }
  return blocks;
}

/** The lines of the block opened at `start`, up to its closing fence (heredoc bodies verbatim when `heredocs`). */
function readBlock(
  lines: string[],
  start: number,
  heredocs: boolean,
): { body: string[]; closed: boolean; next: number; heredocs: boolean } {
  const body: string[] = [];
  const pending: Array<{ word: string; tabs: boolean }> = [];
  let sawHeredoc = false;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (pending.length > 0) {
      body.push(line);
      const h = pending[0];
      if ((h.tabs ? line.replace(/^\t+/, "") : line) === h.word) pending.shift();
      continue;
    }
    if (CLOSE.test(line)) return { body, closed: true, next: i + 1, heredocs: sawHeredoc };
    body.push(line);
    if (!heredocs) continue;
    for (const m of line.matchAll(HEREDOC)) {
      sawHeredoc = true;
      pending.push({ word: m[2] ?? m[3] ?? m[4], tabs: m[1] === "-" });
    }
  }
  return { body, closed: false, next: lines.length, heredocs: sawHeredoc };
}

/** One command, unless it holds a NUL byte (bash cannot take one). */
function commandResult(command: string, thought: string): ParseResult {
  const nul = nulProblem("the command", command);
  if (nul) return { ok: false, error: nul, actions: [command] };
  return { ok: true, actions: [{ kind: "command", command }], thought };
}

/** The reply's text without lines `from` (0-based) up to `to` (exclusive): the block taken out. */
function without(text: string, from: number, to: number): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  return [...lines.slice(0, from), ...lines.slice(to)].join("\n").trim();
}

const describeFence = (b: FencedBlock): string =>
  `${b.tag ? `\`\`\`${b.tag}` : "``` (no tag)"} block (line ${b.line})`;

/**
 * What is wrong with a reply that has not exactly one closed block tagged `tag`, and the exact
 * form expected, built from the reply's own command where there is one: no block at all, the
 * command in a block with another tag (or none), several blocks, or a block never closed.
 */
function blockProblem(
  tag: string,
  blocks: FencedBlock[],
  ours: FencedBlock[],
): { error: string; actions?: string[] } {
  const fence = `\`\`\`${tag}`;
  if (ours.length === 1)
    return {
      error: `the ${fence} block opened on line ${ours[0].line} is never closed: nothing ran. Close it with a line of exactly three backticks, in the form expected:\n${fencedForm(tag, ours[0].body)}`,
    };
  if (ours.length > 1) {
    const lines = ours.map((b) => b.line).join(", ");
    return {
      error: `your reply has ${ours.length} ${fence} blocks (lines ${lines}), and a reply runs exactly one: nothing ran. Send one block now (or join the commands with && in one block) and the next after its output; your first, in the form expected:\n${fencedForm(tag, ours[0].body)}`,
      actions: ours.map((b) => b.body),
    };
  }
  if (blocks.length === 0)
    return {
      error: `your reply has no ${fence} block, so nothing ran. End it with exactly one block holding the command, in the form expected:\n${fencedForm(tag, null)}`,
    };
  const shown = blocks.find((b) => b.body.trim() !== "") ?? blocks[0];
  const which =
    blocks.length === 1
      ? `its command is in a ${describeFence(shown)}`
      : `it has ${blocks.length} fenced blocks of other tags: ${blocks.map(describeFence).join(", ")}`;
  return {
    error: `your reply has no ${fence} block, so nothing ran: ${which}, and only ${fence} blocks run. ${blocks.length === 1 ? "The same command" : `The one on line ${shown.line}`}, in the form expected:\n${fencedForm(tag, shown.body)}`,
  };
}

/**
 * The text protocol with `agent.action_tag` fences, or with a mini-swe-agent style
 * `model.action_regex` (one capturing group: the command, trimmed as mini-swe-agent trims it; an
 * XML tag such as `<mswea_bash_command>(.*?)</mswea_bash_command>` works the same way).
 */
export function createBackticksProtocol(tag: string, actionRegex: string | null): Protocol {
  const regex = actionRegex === null ? null : compileActionRegex(actionRegex);
  const parse = (message: ChatMessage): ParseResult => {
    const text = textOf(message);
    if (regex !== null) {
      const normal = text.replace(/\r\n?/g, "\n");
      const matches = [...normal.matchAll(regex)];
      const actions = matches.map((m) => (m[1] ?? "").trim());
      if (matches.length === 1) {
        const m = matches[0];
        const at = m.index ?? 0;
        return commandResult(actions[0], `${normal.slice(0, at)}${normal.slice(at + m[0].length)}`.trim());
      }
      return {
        ok: false,
        error: `expected exactly one action matching ${actionRegex}, found ${matches.length}.`,
        actions,
      };
    }
    const blocks = findFencedBlocks(text);
    const ours = blocks.filter((b) => b.tag === tag);
    if (ours.length === 1 && ours[0].closed)
      return commandResult(ours[0].body, without(text, ours[0].line - 1, ours[0].end));
    return { ok: false, ...blockProblem(tag, blocks, ours) };
  };
  const constraint =
    regex === null
      ? { kind: "fenced" as const, tag, regex: fencedActionRegex(tag), gbnf: fencedActionGbnf(tag) }
      : undefined;
  return { name: "backticks", parse, constraint };
}
