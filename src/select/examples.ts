/**
 * The issue's own examples (docs/selection.md, step 3b): the Python an issue shows, taken from its
 * text without a model, and what running them prints. A fix is expected to change what the
 * example the issue complains about prints; a candidate under which every example prints what it
 * printed at the base commit has not touched the behaviour the issue shows.
 */

/** Examples taken from one issue, at most. */
export const MAX_EXAMPLES = 5;
/** Characters of one example, at most (longer ones are left out: a pasted module, not an example). */
export const MAX_EXAMPLE_CHARS = 4000;

const PROMPT = /^\s*(>>>|\.\.\.)( |$)/;
/** Fence languages that may hold Python; an untagged fence counts too (the driver skips what does not parse). */
const PYTHON_TAGS = new Set(["", "python", "py", "python3", "pycon", "ipython"]);

/** The code of `>>>`/`...` prompt lines, prompts cut off; null when there are none. */
function promptCode(lines: string[]): string | null {
  const code = lines.filter((l) => PROMPT.test(l)).map((l) => l.replace(PROMPT, ""));
  return code.length > 0 ? code.join("\n") : null;
}

/**
 * The examples of an issue text, in order: each fenced block tagged as Python or untagged (its
 * prompt lines only when it is an interactive session), and each run of `>>>` lines outside the
 * fences. Duplicates, blank ones and ones over MAX_EXAMPLE_CHARS are left out; at most MAX_EXAMPLES.
 */
export function issueExamples(text: string): string[] {
  const found: string[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let outside: string[] = [];
  const flushOutside = () => {
    const code = promptCode(outside);
    if (code) found.push(code);
    outside = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(```+|~~~+)\s*([\w+-]*)/.exec(lines[i]);
    if (!open) {
      if (PROMPT.test(lines[i])) outside.push(lines[i]);
      else flushOutside();
      continue;
    }
    flushOutside();
    const fence = open[1];
    const tag = open[2].toLowerCase();
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].trim().startsWith(fence)) body.push(lines[j++]);
    i = j;
    if (!PYTHON_TAGS.has(tag)) continue;
    found.push(promptCode(body) ?? body.join("\n"));
  }
  flushOutside();
  const seen = new Set<string>();
  return found
    .map((e) => e.replace(/^\n+|\s+$/g, ""))
    .filter((e) => {
      if (e.trim() === "" || e.length > MAX_EXAMPLE_CHARS || seen.has(e)) return false;
      seen.add(e);
      return true;
    })
    .slice(0, MAX_EXAMPLES);
}

/** What one run of the examples printed: per example its output, or null where it does not parse or is not stable. */
export type ExampleOutputs = Array<string | null>;

/** The line the driver prints its result on (JSON after it). */
export const EXAMPLES_MARK = "PATCHLOOP_EXAMPLES_RESULT ";

/** What the driver gets: the examples, and the changed files whose packages it imports first. */
export interface ExamplesInput {
  examples: string[];
  /** Non-test Python files the candidates change (repository paths): their top packages are star-imported first. */
  files: string[];
}

/**
 * The driver run in the instance's environment: `python DRIVER INPUT.json` (ExamplesInput). The
 * examples run in order as one interactive session, as a reader of the issue runs them: a name
 * one example defines is there for the next (issues split one session over several blocks).
 * Before them, `from <package> import *` for the top package of each changed file (the highest
 * folder up from it that has an `__init__.py`), as an issue about a library is written against
 * its names (`idiff(...)` in a sympy issue); one that does not import is skipped. Each statement
 * runs as the interactive interpreter does (an expression's value is printed); printed text and
 * exceptions (type and message, no traceback: its line numbers move with the patch) are captured
 * per example, memory addresses blanked. The session runs twice, each time in a fresh namespace;
 * an example that does not parse, or prints differently the second time, gives null.
 */
export const EXAMPLES_DRIVER = `
import ast, contextlib, io, json, os, re, sys

def top_package(path):
    parts = path.replace(os.sep, "/").split("/")[:-1]
    top = None
    for k in range(len(parts), 0, -1):
        if os.path.isfile(os.path.join(*parts[:k], "__init__.py")):
            top = k
        else:
            break
    if top is None:
        return None
    root = os.path.join(*parts[:top - 1]) if top > 1 else "."
    return parts[top - 1], root

def session(examples, packages):
    scope = {"__name__": "__main__"}
    for name, root in packages:
        if root != "." and os.path.abspath(root) not in sys.path:
            sys.path.append(os.path.abspath(root))
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                exec("from %s import *" % name, scope)
        except BaseException:
            pass
    outputs = []
    for code in examples:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            outputs.append(None)
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            for stmt in tree.body:
                try:
                    exec(compile(ast.Interactive(body=[stmt]), "<issue>", "single"), scope)
                except BaseException as e:
                    print("%s: %s" % (type(e).__name__, e))
                    if isinstance(e, (KeyboardInterrupt, SystemExit)):
                        break
        outputs.append(re.sub(r" at 0x[0-9a-fA-F]+", " at 0x?", out.getvalue())[:4000])
    return outputs

given = json.load(open(sys.argv[1]))
packages = sorted({p for p in map(top_package, given["files"]) if p})
first = session(given["examples"], packages)
second = session(given["examples"], packages)
results = [a if a == b else None for a, b in zip(first, second)]
sys.stdout.write("\\n${EXAMPLES_MARK}" + json.dumps(results) + "\\n")
`;

/** The driver's result in a run's output, or null when it printed none (it crashed or was stopped). */
export function parseExampleOutputs(output: string, count: number): ExampleOutputs | null {
  const line = output
    .split("\n")
    .reverse()
    .find((l) => l.startsWith(EXAMPLES_MARK));
  if (!line) return null;
  try {
    const parsed: unknown = JSON.parse(line.slice(EXAMPLES_MARK.length));
    if (
      !Array.isArray(parsed) ||
      parsed.length !== count ||
      !parsed.every((x) => x === null || typeof x === "string")
    )
      return null;
    return parsed as ExampleOutputs;
  } catch {
    return null;
  }
}

/**
 * Which examples print something else with a candidate than at the base commit (indexes), among
 * those that ran and were stable both times; null when none of them can be compared.
 */
export function changedExamples(base: ExampleOutputs, withCandidate: ExampleOutputs): number[] | null {
  const comparable = base
    .map((b, i) => (b !== null && withCandidate[i] !== null ? i : -1))
    .filter((i) => i >= 0);
  if (comparable.length === 0) return null;
  return comparable.filter((i) => base[i] !== withCandidate[i]);
}

/** An output line that reports an exception (the driver prints `Type: message`); the issue's tracebacks show those. */
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(Error|Exception|Warning|Interrupt|Exit)\b/;

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * The issue's prose and pasted output, without the examples' own code: each line that is a
 * prompt line or, trimmed, one of the examples' code lines is left out, so a value an example's
 * code spells out (`print("done")`) does not read as one the issue states. Comment lines stay
 * (`# MatrixKind(NumberKind)`): they run nothing, and that is where authors write the value.
 */
export function statementText(issue: string, examples: string[]): string {
  const code = new Set(examples.flatMap((e) => e.split("\n").map((l) => l.trim())).filter((l) => l !== ""));
  return squash(
    issue
      .replace(/\r\n?/g, "\n")
      .split("\n")
      .filter((l) => !PROMPT.test(l) && (!code.has(l.trim()) || l.trim().startsWith("#")))
      .join("\n"),
  );
}

/** Whether `needle` occurs in `hay` with no identifier character right before or after it. */
function occursAsToken(hay: string, needle: string): boolean {
  const word = /[A-Za-z0-9_]/;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = at > 0 ? hay[at - 1] : "";
    const after = hay[at + needle.length] ?? "";
    if (!word.test(before) && !word.test(after)) return true;
  }
  return false;
}

/**
 * Of the examples a candidate changes, those where it prints a line the issue states: a line the
 * example did not print at the base commit, not an exception, found in the issue's text outside
 * the examples' code (statementText) as a whole token, whitespace runs counting as one space (one
 * character is too common a token to count: `0`, `x`).
 * An issue that shows a wrong value usually says which value it expects; a candidate that prints
 * that value has made the change the issue asks for. Null when no example could be compared.
 */
export function statedExamples(
  statement: string,
  base: ExampleOutputs,
  withCandidate: ExampleOutputs,
): number[] | null {
  const changed = changedExamples(base, withCandidate);
  if (changed === null) return null;
  return changed.filter((i) => {
    const before = new Set((base[i] as string).split("\n").map(squash));
    return (withCandidate[i] as string)
      .split("\n")
      .map(squash)
      .some((l) => l.length >= 2 && !before.has(l) && !EXCEPTION_LINE.test(l) && occursAsToken(statement, l));
  });
}
