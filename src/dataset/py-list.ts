/**
 * Reads a Python list of strings written as Python prints it (`['a', "b's"]`), the way SWE-bench
 * Pro stores `fail_to_pass`, `pass_to_pass` and `selected_test_files_to_run` (its harness reads
 * them with `eval`; nothing is evaluated here). Returns the strings, or a message saying what was
 * wrong and where.
 */
export function parsePyStringList(
  text: string,
): { ok: true; items: string[] } | { ok: false; error: string } {
  const items: string[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const fail = (what: string) => ({ ok: false as const, error: `${what} at character ${i + 1}` });
  ws();
  if (text[i] !== "[") return fail("expected [");
  i++;
  ws();
  if (text[i] === "]") {
    i++;
    ws();
    return i === text.length ? { ok: true, items } : fail("text after the list");
  }
  for (;;) {
    ws();
    const quote = text[i];
    if (quote !== "'" && quote !== '"') return fail("expected a quoted string");
    i++;
    let value = "";
    for (;;) {
      if (i >= text.length) return fail("unterminated string");
      const c = text[i];
      if (c === quote) {
        i++;
        break;
      }
      if (c === "\n") return fail("a line break inside a string");
      if (c !== "\\") {
        value += c;
        i++;
        continue;
      }
      const n = text[i + 1];
      const simple: Record<string, string> = {
        "\\": "\\",
        "'": "'",
        '"': '"',
        n: "\n",
        t: "\t",
        r: "\r",
        "0": "\0",
        a: "\x07",
        b: "\b",
        f: "\f",
        v: "\v",
      };
      if (n !== undefined && n in simple) {
        value += simple[n];
        i += 2;
        continue;
      }
      const width = n === "x" ? 2 : n === "u" ? 4 : n === "U" ? 8 : 0;
      const hex = text.slice(i + 2, i + 2 + width);
      if (width > 0 && hex.length === width && /^[0-9a-fA-F]+$/.test(hex)) {
        value += String.fromCodePoint(Number.parseInt(hex, 16));
        i += 2 + width;
        continue;
      }
      // Python keeps an unknown escape as written (backslash included).
      value += c;
      i++;
    }
    items.push(value);
    ws();
    if (text[i] === ",") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        break;
      }
      continue;
    }
    if (text[i] === "]") {
      i++;
      break;
    }
    return fail("expected , or ]");
  }
  ws();
  return i === text.length ? { ok: true, items } : fail("text after the list");
}
