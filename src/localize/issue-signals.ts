/**
 * What an issue's text says about where the bug is, read without a model: traceback frames, paths,
 * dotted names, identifiers (with where they appear: the title, code, backticks, prose), error
 * messages and test names. rank.ts maps these onto the files of the repository.
 */

/** One frame of a traceback, outermost first within its traceback. */
export interface Frame {
  /** The path as written (backslashes turned into slashes). */
  path: string;
  line: number;
  /** The function of the frame (`<module>` at top level), "" when the format has none. */
  func: string;
  /** Which traceback of the issue (0 = the first). */
  traceback: number;
  /** Position in its traceback (0 = outermost). */
  index: number;
}

/** Where an identifier was seen; each counts once per place. */
export interface IdentifierUse {
  count: number;
  title: boolean;
  /** Inside backticks (inline code). */
  backticked: boolean;
  /** Inside a code block, a `>>>` session or a traceback. */
  code: boolean;
}

export interface IssueSignals {
  frames: Frame[];
  /** Path-like strings (`pkg/module.py`, `docs/conf.py`), in order of first mention. */
  paths: string[];
  /** Dotted names (`pkg.module`, `Class.method`, `module.Class.method`), in order of first mention. */
  dotted: string[];
  identifiers: Map<string, IdentifierUse>;
  /** Exception messages (`ValueError: ...` lines) and quoted strings from `raise` lines. */
  messages: string[];
  /** The first line: the title on GitHub issues. */
  title: string;
  /**
   * Command-line options and settings written with hyphens (`--import-mode`, `ignore-paths`) as
   * the names code gives them (`import_mode`, `ImportMode`): also in {@link identifiers}.
   */
  optionNames: string[];
}

const PY_FRAME = /File "([^"\n]+)", line (\d+)(?:, in ([^\s\n]+))?/g;
/** pytest's short frames: `src/pkg/mod.py:123: in func` or `pkg/mod.py:45: ValueError`. */
const PYTEST_FRAME =
  /^([\w./\\-]+\.py):(\d+):(?: in ([\w<>.]+)$|\s+(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning)\b)/gm;
/**
 * Stack frames of the other languages, each listing the innermost call first: JavaScript's
 * `at f (src/x.js:10:5)`, Java's `at com.acme.Cart.total(Cart.java:17)`, Go's `\t/src/x.go:12 +0x1d`
 * (its function on the line above), Rust's `at src/x.rs:12:5` and `panicked at src/x.rs:12:5`,
 * Ruby's `lib/x.rb:12:in 'f'`, PHP's `#0 /app/x.php(12): A->f()` and `in /app/x.php on line 12`,
 * and a debugger's or sanitizer's `#1 0x4a in f src/x.c:12`. Bounded quantifiers: an issue is
 * read in milliseconds whatever it holds.
 */
const OTHER_FRAMES: Array<{ re: RegExp; frame: (m: RegExpMatchArray, text: string) => RawFrame | null }> = [
  {
    re: /^[ \t]*at (?:(?:async |new )?([\w$.<>[\] ]{1,200}?) \()?(?:file:\/\/|webpack:\/\/\/?)?([^\s():]{1,400}\.(?:[cm]?[jt]sx?|vue|svelte)):(\d{1,7})(?::\d{1,7})?\)?[ \t]*$/gm,
    frame: (m) => ({ path: m[2], line: Number(m[3]), func: lastName(m[1] ?? "") }),
  },
  {
    re: /^[ \t]*at ([\w$.]{1,300})\.([\w$<>]{1,100})\(([\w$-]{1,100}\.(?:java|kt|scala|groovy)):(\d{1,7})\)/gm,
    frame: (m) => {
      const pkg = m[1].split(".").slice(0, -1);
      return { path: [...pkg, m[3]].join("/"), line: Number(m[4]), func: m[2] };
    },
  },
  {
    re: /^\t((?:[A-Za-z]:)?[^\s:]{1,400}\.go):(\d{1,7})(?: \+0x[0-9a-f]{1,16})?[ \t]*$/gm,
    frame: (m, text) => {
      // the line above: `pkg.(*T).Method(args)`
      const end = (m.index ?? 0) - 1;
      const above = text.slice(Math.max(0, text.lastIndexOf("\n", end - 1) + 1, end - 800), Math.max(0, end));
      const call = /^([\w.*()/-]{1,300})\([^()\n]{0,400}\)$/.exec(above);
      return { path: m[1], line: Number(m[2]), func: lastName(call?.[1] ?? "") };
    },
  },
  {
    re: /^[ \t]+at ((?:[A-Za-z]:)?[^\s:]{1,400}\.rs):(\d{1,7})(?::\d{1,7})?[ \t]*$|panicked at (?:'[^\n]{0,400}', )?((?:[A-Za-z]:)?[^\s:']{1,400}\.rs):(\d{1,7})/gm,
    frame: (m) => ({ path: m[1] ?? m[3], line: Number(m[2] ?? m[4]), func: "" }),
  },
  {
    re: /^[ \t]*(?:from )?((?:[A-Za-z]:)?[^\s:]{1,400}\.rb):(\d{1,7}):in [`'](?:[^`'\n]{0,200}[#.])?([^`'\n]{1,200})'/gm,
    frame: (m) => ({
      path: m[1],
      line: Number(m[2]),
      func: m[3].replace(/^block (?:\(\d+ levels\) )?in /, ""),
    }),
  },
  {
    re: /^#\d{1,4} ((?:[A-Za-z]:)?[^\s(]{1,400}\.php)\((\d{1,7})\): (?:[\w\\]{1,300}(?:->|::))?(\w{1,200})|\b(?:thrown )?in ((?:[A-Za-z]:)?[^\s:]{1,400}\.php)(?: on line |:)(\d{1,7})/gm,
    frame: (m) => ({ path: m[1] ?? m[4], line: Number(m[2] ?? m[5]), func: m[3] ?? "" }),
  },
  {
    re: /^[ \t]*#\d{1,4} +(?:0x[0-9a-fA-F]{1,16} in )?([\w:~]{1,300})[^\n]{0,400}?[ (]((?:[A-Za-z]:)?[\w./-]{1,400}\.(?:c|cc|cpp|cxx|h|hpp)):(\d{1,7})/gm,
    frame: (m) => ({ path: m[2], line: Number(m[3]), func: lastName(m[1]) }),
  },
];

interface RawFrame {
  path: string;
  line: number;
  func: string;
}

/** The last name of a qualified one (`store.(*Store).Lookup` → `Lookup`, `fmt::Buffer::grow` → `grow`). */
function lastName(q: string): string {
  return /([A-Za-z_$][\w$]*)[^\w$]*$/.exec(q.trim())?.[1] ?? "";
}

const PATH =
  /(?:^|[\s`'"([=:])((?:[\w.-]+[/\\])*[\w.-]+\.(?:py|pyx|pxd|pyi|rst|txt|cfg|toml|ini|json|yaml|yml|c|h|cc|cpp|cxx|hpp|hh|js|jsx|mjs|cjs|ts|tsx|mts|go|rs|java|kt|rb|php|html|css|md))(?=$|[\s`'"),:;\]]|\.\s)/gm;
const DOTTED = /(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+/g;
const IDENT = /(?<![\w.])[A-Za-z_][A-Za-z0-9_]*|(?<=\.)[A-Za-z_][A-Za-z0-9_]*/g;
const EXCEPTION_LINE =
  /^\s*(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt))(?:\s*:\s*(.+))?$/gm;
/**
 * A hyphenated name of words (`import-mode`, `--ignore-paths`; not `x-1`, `a-b` or a path's
 * `site-packages/`); DASHED_OPTION only one written with `--`.
 */
const OPTION = /(?<![\w./\\-])(?:--?)?([A-Za-z][a-z]+(?:-[a-z]{2,})+)(?![\w/\\-])/g;
const DASHED_OPTION = /(?<![\w./\\-])--([A-Za-z][a-z]+(?:-[a-z]{2,})+)(?![\w/\\-])/g;
const RAISE_STRING = /raise\s+[\w.]+\(\s*[rfbu]?(["'])(.{8,}?)\1/g;

/**
 * Fenced blocks out of `text`: each from a line's ``` (its info string and the line break after it
 * skipped) to the next ``` or the end, the bodies into `code`, a line break in their place. One
 * pass with indexOf, so linear in the text however many backticks it holds (the regular
 * expression this replaces backtracked for minutes on a line of backticks without a line break).
 */
function cutFences(text: string, code: string[]): string {
  const kept: string[] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf("```", at);
    if (open < 0) break;
    const bodyStart = text.indexOf("\n", open + 3) + 1;
    // no line break after it: neither this fence nor any later one opens a block
    if (bodyStart === 0) break;
    const close = text.indexOf("```", bodyStart);
    const bodyEnd = close < 0 ? text.length : close;
    code.push(text.slice(bodyStart, bodyEnd));
    kept.push(text.slice(at, open), "\n");
    at = close < 0 ? text.length : close + 3;
  }
  kept.push(text.slice(at));
  return kept.join("");
}

/** Text inside fenced code blocks, `>>>` sessions and tracebacks, and the inline backtick spans. */
function splitCode(text: string): { code: string; inline: string[]; prose: string } {
  const code: string[] = [];
  const inline: string[] = [];
  let prose = cutFences(text, code);
  prose = prose.replace(/`([^`\n]+)`/g, (_, span: string) => {
    inline.push(span);
    return " ";
  });
  const proseLines: string[] = [];
  for (const line of prose.split("\n")) {
    if (/^\s*(>>>|\.\.\.|In \[\d+\]:|Out\[\d+\]:|Traceback|File ")|^ {4,}\S/.test(line)) code.push(line);
    else proseLines.push(line);
  }
  // a comment in the code (`# the sum should be n`) is prose
  const codeText = code.join("\n").replace(/(^|[ \t])#[ \t].*$/gm, (comment: string) => {
    proseLines.push(comment);
    return "";
  });
  return { code: codeText, inline, prose: proseLines.join("\n") };
}

function frames(text: string): Frame[] {
  const out: Frame[] = [];
  // A traceback is a run of frames; a new one starts after a line that is not part of a frame.
  let traceback = -1;
  let lastEnd = -1;
  let index = 0;
  const found: Array<RawFrame & { at: number; end: number; innermostFirst: boolean }> = [];
  for (const m of text.matchAll(PY_FRAME))
    found.push({
      at: m.index,
      end: m.index + m[0].length,
      path: m[1],
      line: Number(m[2]),
      func: m[3] ?? "",
      innermostFirst: false,
    });
  for (const m of text.matchAll(PYTEST_FRAME))
    found.push({
      at: m.index,
      end: m.index + m[0].length,
      path: m[1],
      line: Number(m[2]),
      func: m[3] ?? "",
      innermostFirst: false,
    });
  for (const { re, frame } of OTHER_FRAMES)
    for (const m of text.matchAll(re)) {
      const f = frame(m, text);
      if (f) found.push({ ...f, at: m.index, end: m.index + m[0].length, innermostFirst: true });
    }
  found.sort((a, b) => a.at - b.at);
  // each traceback outermost first: the other languages' stacks are turned around
  let group: typeof found = [];
  const flush = () => {
    if (group.length === 0) return;
    if (group.some((f) => f.innermostFirst)) group.reverse();
    for (const f of group)
      out.push({ path: f.path.replace(/\\+/g, "/"), line: f.line, func: f.func, traceback, index: index++ });
    group = [];
  };
  for (const f of found) {
    const between = lastEnd < 0 ? "" : text.slice(lastEnd, f.at);
    // Frames of one traceback are separated by their source lines only (a line or two each).
    const sameTraceback =
      lastEnd >= 0 && between.split("\n").length <= 8 && !/Traceback \(most recent/.test(between);
    if (!sameTraceback) {
      flush();
      traceback++;
      index = 0;
    }
    group.push(f);
    lastEnd = f.end;
  }
  flush();
  return out;
}

function uniq(items: Iterable<string>): string[] {
  return [...new Set(items)];
}

/**
 * Characters of an issue read for signals: four times the longest SWE-bench issue (about 25,000),
 * so that a text of megabytes (pasted logs, or one made to be slow) costs milliseconds, not minutes.
 */
export const MAX_ISSUE_CHARS = 100_000;

/** Distinct dotted names kept from one issue, in order of first mention: a few dozen in real issues. */
export const MAX_DOTTED_NAMES = 200;
/** Parts of a dotted name (`a.b.c` has 3); a longer chain is not a name anyone writes (a dotted path of a deep Java package has about 8). */
export const MAX_DOTTED_PARTS = 16;
/** Characters of a dotted name, for the same reason. */
export const MAX_DOTTED_CHARS = 256;

/**
 * The dotted names of `texts` (code, then backticks, then prose), first mentions first, file names
 * (`x.py`, `README.md`) and names past {@link MAX_DOTTED_PARTS} or {@link MAX_DOTTED_CHARS} left
 * out, at most {@link MAX_DOTTED_NAMES}. The ranking resolves each name against every prefix of
 * it, so one name of 50,000 parts (`a.` x 50,000) held a localization for minutes.
 */
function dottedNames(texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(DOTTED)) {
      const d = m[0];
      if (d.length > MAX_DOTTED_CHARS || /\.(py|rst|txt|cfg|toml|html|md)$/.test(d)) continue;
      if (d.split(".", MAX_DOTTED_PARTS + 1).length > MAX_DOTTED_PARTS) continue;
      names.add(d);
      if (names.size >= MAX_DOTTED_NAMES) return [...names];
    }
  }
  return [...names];
}

/** Reads the signals out of an issue's text (its first {@link MAX_ISSUE_CHARS} characters). */
export function issueSignals(issue: string): IssueSignals {
  const text = issue.length > MAX_ISSUE_CHARS ? issue.slice(0, MAX_ISSUE_CHARS) : issue;
  const title = text.split("\n", 1)[0].trim();
  const { code, inline, prose } = splitCode(text);
  const identifiers = new Map<string, IdentifierUse>();
  const note = (source: string, where: "title" | "backticked" | "code" | "prose") => {
    for (const m of source.matchAll(IDENT)) {
      const id = m[0];
      if (id.length < 3) continue;
      let use = identifiers.get(id);
      if (!use) {
        use = { count: 0, title: false, backticked: false, code: false };
        identifiers.set(id, use);
      }
      use.count++;
      if (where === "title") use.title = true;
      else if (where === "backticked") use.backticked = true;
      else if (where === "code") use.code = true;
    }
  };
  note(title, "title");
  for (const span of inline) note(span, "backticked");
  note(code, "code");
  note(prose, "prose");
  const optionNames = new Set<string>();
  const options = (source: string, where: "title" | "backticked" | "code", dashed: boolean) => {
    for (const m of source.matchAll(dashed ? DASHED_OPTION : OPTION)) {
      const parts = m[1].toLowerCase().split("-");
      for (const name of [parts.join("_"), parts.map((p) => p[0].toUpperCase() + p.slice(1)).join("")]) {
        optionNames.add(name);
        note(name, where);
      }
    }
  };
  options(title, "title", true);
  for (const span of inline) options(span, "backticked", false);
  options(code, "code", false);
  // in prose only an option written as one (`--import-mode`): `built-in` is a word
  options(prose, "code", true);

  const messages: string[] = [];
  for (const m of text.matchAll(EXCEPTION_LINE))
    if (m[2] && m[2].trim().length >= 8) messages.push(m[2].trim());
  for (const m of text.matchAll(RAISE_STRING)) messages.push(m[2]);

  const paths = uniq([...text.matchAll(PATH)].map((m) => m[1].replace(/\\/g, "/")));
  const dotted = dottedNames([code, ...inline, prose]);
  return {
    frames: frames(text),
    paths,
    dotted,
    identifiers,
    messages: uniq(messages),
    title,
    optionNames: [...optionNames],
  };
}
