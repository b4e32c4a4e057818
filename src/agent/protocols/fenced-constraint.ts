/**
 * The backticks format as a regular expression and as a GBNF grammar, for servers that can enforce
 * it (`model.constrain_actions`): free text, then exactly one block fenced with ```TAG, then
 * nothing but whitespace. Every reply the two accept is one the backticks parser (backticks.ts)
 * accepts with one action; test/agent/fenced-constraint.unit.test.ts checks both with xgrammar (the
 * engine vLLM and SGLang use) and the regex with JavaScript's engine too.
 *
 * They are stricter than the parser in three places, on purpose (a regex cannot follow heredocs):
 * the free text has no line starting with three backticks, no line inside the block is a closing
 * fence (a heredoc that writes one cannot be produced), and nothing follows the block.
 *
 * The regex keeps to the subset that xgrammar (vLLM, SGLang), outlines and llguidance all accept:
 * literals, the escapes \n \r \t and a backslash before . + and other regex operators, character classes `[...]` / `[^...]`, groups `( )`,
 * alternation `|` and the quantifiers `* + ?`. No anchors (the whole reply must match), no `.`, no
 * `\s`/`\d`/`\w`, no `{m,n}`, no lazy quantifiers, no lookaround, no backreferences, no flags.
 */

/** A line of free text: anything but a line starting with three backticks. No CR (the parser reads a CR as a line end). */
const TEXT_LINE = "(([^`\\r\\n][^\\r\\n]*)|(`([^`\\r\\n][^\\r\\n]*)?)|(``([^`\\r\\n][^\\r\\n]*)?))?\\n";
/** A line of the block: anything but a closing fence (three backticks and only spaces or tabs). */
const BODY_LINE =
  "(([^`\\r\\n][^\\r\\n]*)|(`([^`\\r\\n][^\\r\\n]*)?)|(``([^`\\r\\n][^\\r\\n]*)?)|(```[ \\t]*[^ \\t\\r\\n][^\\r\\n]*))?\\n";

function regexLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, (c) => `\\${c}`);
}

/** The regular expression of a reply with exactly one ```TAG block (whole-reply match). */
export function fencedActionRegex(tag: string): string {
  return `(${TEXT_LINE})*${regexLiteral("```")}${regexLiteral(tag)}\\n(${BODY_LINE})+${regexLiteral("```")}[ \\t\\n]*`;
}

function gbnfLiteral(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The GBNF grammar (llama.cpp `grammar`) of a reply with exactly one ```TAG block. */
export function fencedActionGbnf(tag: string): string {
  return [
    `root ::= text-line* ${gbnfLiteral(`\`\`\`${tag}`)} "\\n" body-line+ "\`\`\`" [ \\t\\n]*`,
    'text-line ::= ( [^`\\r\\n] [^\\r\\n]* | "`" ( [^`\\r\\n] [^\\r\\n]* )? | "``" ( [^`\\r\\n] [^\\r\\n]* )? )? "\\n"',
    'body-line ::= ( [^`\\r\\n] [^\\r\\n]* | "`" ( [^`\\r\\n] [^\\r\\n]* )? | "``" ( [^`\\r\\n] [^\\r\\n]* )? | "```" [ \\t]* [^ \\t\\r\\n] [^\\r\\n]* )? "\\n"',
    "",
  ].join("\n");
}
