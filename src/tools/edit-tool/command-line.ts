/** The first line of an edit-tool block, split into words and the heredoc's end word. */
export interface CommandLine {
  words: string[];
  /** The word that ends the heredoc, without its quotes; undefined when the line has no `<<`. */
  terminator?: string;
}

/** Raised for a first line that cannot be read; the message says what is wrong with it. */
export class CommandLineError extends Error {}

/** Splits words the way a shell would for this purpose: single quotes, double quotes, backslashes. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end === -1) throw new CommandLineError(`a ${c} quote is not closed`);
      const inner = text.slice(i + 1, end);
      word = (word ?? "") + (c === '"' ? inner.replace(/\\(["\\$`])/g, "$1") : inner);
      i = end;
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[i + 1];
      i++;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Reads the first line: its words, and the heredoc's end word when it has `<< WORD` at its end. */
export function readCommandLine(line: string): CommandLine {
  const at = line.indexOf("<<");
  if (at === -1) return { words: splitWords(line) };
  const rest = line.slice(at + 2);
  if (rest.startsWith("<")) {
    throw new CommandLineError(
      "<<< (a here-string) is not supported; use a heredoc: << 'PATCH', the text, PATCH",
    );
  }
  if (rest.startsWith("-")) {
    throw new CommandLineError(
      "<<- is not supported (it strips leading tabs from your text); use << 'PATCH'",
    );
  }
  const m = /^\s*(?:'([^']+)'|"([^"]+)"|([A-Za-z0-9_.-]+))\s*$/.exec(rest);
  if (!m) {
    throw new CommandLineError(
      `the heredoc start ${JSON.stringify(line.slice(at).trim())} cannot be read; end the first line with ` +
        `<< 'PATCH' (any word, quoted or not), and put nothing after it`,
    );
  }
  return { words: splitWords(line.slice(0, at)), terminator: m[1] ?? m[2] ?? m[3] };
}
