import { CommandLineError, readCommandLine } from "./command-line.js";
import { EDIT_TOOL_FORMS, EDIT_TOOL_USAGE, type EditToolSubcommand } from "./usage.js";

/** One edit-tool command, parsed. Texts are exactly what the editor core receives. */
export type EditToolCommand =
  | { kind: "view"; path: string; range?: [number, number] }
  | { kind: "create"; path: string; text: string }
  | { kind: "str_replace"; path: string; oldText: string; newText: string }
  | { kind: "insert"; path: string; line: number; text: string }
  | { kind: "undo"; path: string };

/** The parse of a block: a command, or an error message that shows the expected form. */
export type EditToolParse = { ok: true; command: EditToolCommand } | { ok: false; error: string };

const SUBCOMMANDS = Object.keys(EDIT_TOOL_FORMS) as EditToolSubcommand[];
const OPTIONS: Record<EditToolSubcommand, readonly string[]> = {
  str_replace: ["--file"],
  create: ["--file"],
  insert: ["--file", "--line"],
  view: ["--file", "--range"],
  undo: ["--file"],
};
const TAKES_HEREDOC: Record<EditToolSubcommand, boolean> = {
  str_replace: true,
  create: true,
  insert: true,
  view: false,
  undo: false,
};

const MENTION = /(^|[;&|(])\s*edit-tool(?=\s|$)/m;

/**
 * Whether a command block is meant for edit-tool: some line starts with `edit-tool` (also after
 * `;`, `&&`, `|` or `(`). A block that also holds other commands is still claimed, so that it gets
 * edit-tool's error showing the expected form instead of `edit-tool: command not found`.
 */
export function isEditToolCommand(text: string): boolean {
  return MENTION.test(text);
}

class ParseError extends Error {
  constructor(message: string, form?: EditToolSubcommand) {
    const shown = form ? `Expected form:\n${EDIT_TOOL_FORMS[form]}` : `Usage:\n${EDIT_TOOL_USAGE}`;
    super(`edit-tool: ${message}\n${shown}`);
  }
}

const MIXED =
  "an edit-tool command must be the only command in its block. Send it in a block of its own, and any other commands in a later reply.";

function readOptions(words: string[], sub: EditToolSubcommand): Map<string, string> {
  const options = new Map<string, string>();
  for (let i = 2; i < words.length; i++) {
    const word = words[i];
    const eq = word.indexOf("=");
    const name = word.startsWith("--") && eq !== -1 ? word.slice(0, eq) : word;
    if (!OPTIONS[sub].includes(name)) {
      const kind = name.startsWith("-") ? "option" : "argument";
      throw new ParseError(`${sub} does not take the ${kind} ${JSON.stringify(word)}.`, sub);
    }
    if (options.has(name)) throw new ParseError(`${name} is given twice.`, sub);
    const value = eq !== -1 && name !== word ? word.slice(eq + 1) : words[++i];
    if (value === undefined || value === "") throw new ParseError(`${name} needs a value.`, sub);
    options.set(name, value);
  }
  if (!options.has("--file"))
    throw new ParseError(`${sub} needs --file with the absolute path of the file.`, sub);
  return options;
}

function parseRange(value: string): [number, number] {
  const m = /^(\d+):(-1|\d+)?$/.exec(value);
  if (!m) {
    throw new ParseError(
      `--range must be two line numbers like 40:80 (40:-1 means from line 40 to the end); got ${JSON.stringify(value)}.`,
      "view",
    );
  }
  return [Number.parseInt(m[1], 10), m[2] === undefined ? -1 : Number.parseInt(m[2], 10)];
}

function splitReplaceBody(body: string[]): { oldText: string; newText: string } {
  const isMarker = (line: string, marker: string) => line.trim() === marker;
  let start = 0;
  while (start < body.length && body[start].trim() === "") start++;
  if (start >= body.length || !isMarker(body[start], "---OLD---")) {
    throw new ParseError("the heredoc of str_replace must start with a ---OLD--- line.", "str_replace");
  }
  const rest = body.slice(start + 1);
  const newAt = rest.findIndex((line) => isMarker(line, "---NEW---"));
  if (newAt === -1) {
    throw new ParseError(
      "the heredoc has no ---NEW--- line between the old and the new text.",
      "str_replace",
    );
  }
  const oldLines = rest.slice(0, newAt);
  const newLines = rest.slice(newAt + 1);
  if ([...oldLines, ...newLines].some((l) => isMarker(l, "---OLD---") || isMarker(l, "---NEW---"))) {
    throw new ParseError(
      "the heredoc has more than one ---OLD--- or ---NEW--- line. One str_replace changes one place: send each change in its own block.",
      "str_replace",
    );
  }
  return { oldText: oldLines.join("\n"), newText: newLines.join("\n") };
}

function build(
  sub: EditToolSubcommand,
  options: Map<string, string>,
  body: string[] | undefined,
): EditToolCommand {
  const path = options.get("--file") ?? "";
  switch (sub) {
    case "view": {
      const range = options.get("--range");
      return range === undefined ? { kind: "view", path } : { kind: "view", path, range: parseRange(range) };
    }
    case "undo":
      return { kind: "undo", path };
    case "create":
      return { kind: "create", path, text: body && body.length > 0 ? `${body.join("\n")}\n` : "" };
    case "insert": {
      const line = options.get("--line");
      if (line === undefined)
        throw new ParseError("insert needs --line N (the line to insert after; 0 = top).", sub);
      if (!/^\d+$/.test(line)) {
        throw new ParseError(
          `--line must be a line number (0 = at the top); got ${JSON.stringify(line)}.`,
          sub,
        );
      }
      return { kind: "insert", path, line: Number.parseInt(line, 10), text: (body ?? []).join("\n") };
    }
    case "str_replace":
      return { kind: "str_replace", path, ...splitReplaceBody(body ?? []) };
  }
}

function parseOrThrow(text: string): EditToolCommand {
  const lines = text.split("\n");
  let first = 0;
  while (first < lines.length && lines[first].trim() === "") first++;
  const head = (lines[first] ?? "").trim();
  if (!/^edit-tool(\s|$)/.test(head)) throw new ParseError(MIXED);
  let parsed: ReturnType<typeof readCommandLine>;
  try {
    parsed = readCommandLine(head);
  } catch (err) {
    if (!(err instanceof CommandLineError)) throw err;
    const sub = head.split(/\s+/)[1] as EditToolSubcommand;
    throw new ParseError(`${err.message}.`, SUBCOMMANDS.includes(sub) ? sub : undefined);
  }
  const sub = parsed.words[1];
  if (sub === undefined)
    throw new ParseError("the command is missing: one of view, create, str_replace, insert, undo.");
  if (!(SUBCOMMANDS as string[]).includes(sub)) {
    throw new ParseError(
      `unknown command ${JSON.stringify(sub)}; the commands are ${SUBCOMMANDS.join(", ")}.`,
    );
  }
  const subcommand = sub as EditToolSubcommand;
  const options = readOptions(parsed.words, subcommand);
  let after = lines.slice(first + 1);
  let body: string[] | undefined;
  if (parsed.terminator !== undefined) {
    if (!TAKES_HEREDOC[subcommand])
      throw new ParseError(`${subcommand} takes no heredoc; it is one line.`, subcommand);
    const end = after.findIndex((line) => line.trimEnd() === parsed.terminator);
    if (end === -1) {
      throw new ParseError(
        `the heredoc is not closed: no line consisting of ${parsed.terminator} ends it.`,
        subcommand,
      );
    }
    body = after.slice(0, end);
    after = after.slice(end + 1);
  } else if (TAKES_HEREDOC[subcommand]) {
    throw new ParseError(
      `${subcommand} needs its text in a heredoc that starts with << 'PATCH' on the first line.`,
      subcommand,
    );
  }
  if (after.some((line) => line.trim() !== "")) throw new ParseError(MIXED, subcommand);
  return build(subcommand, options, body);
}

/** Parses a block that `isEditToolCommand` claimed; errors show the expected form. */
export function parseEditToolCommand(text: string): EditToolParse {
  try {
    return { ok: true, command: parseOrThrow(text) };
  } catch (err) {
    if (err instanceof ParseError) return { ok: false, error: err.message };
    throw err;
  }
}
