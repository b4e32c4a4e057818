/**
 * Hints for a `str_replace` whose text was not found: the two mistakes models make most are copying
 * the line numbers of a view along with the code, and getting the indentation slightly wrong.
 * Returns text to append to the error (starting with a space), or "".
 */
export function notFoundHints(text: string, oldStr: string): string {
  const hints: string[] = [];
  const oldLines = oldStr.split("\n");
  const nonEmpty = oldLines.filter((l) => l.trim() !== "");
  if (nonEmpty.length > 0 && nonEmpty.every((l) => /^\s*\d+\t/.test(l))) {
    hints.push(
      "It seems to start with line numbers copied from the view output (a number and a tab); leave those out.",
    );
  }
  const loose = looseMatches(text, oldLines);
  if (loose.length > 0) {
    const where = loose.length === 1 ? `line ${loose[0]}` : `lines ${loose.slice(0, 5).join(", ")}`;
    hints.push(
      `Ignoring the spaces and tabs at the start and end of each line, it does match at ${where}: ` +
        `the difference is in the whitespace (indentation depth, tabs against spaces, trailing spaces).`,
    );
  }
  return hints.length > 0 ? ` ${hints.join(" ")}` : "";
}

/** 1-based lines where the old text's lines, each trimmed, match consecutive trimmed file lines. */
function looseMatches(text: string, oldLines: string[]): number[] {
  const want = oldLines.map((l) => l.trim());
  while (want.length > 0 && want[0] === "") want.shift();
  while (want.length > 0 && want[want.length - 1] === "") want.pop();
  if (want.length === 0) return [];
  const have = text.split("\n").map((l) => l.trim());
  const found: number[] = [];
  for (let i = 0; i + want.length <= have.length; i++) {
    if (want.every((w, j) => have[i + j] === w)) found.push(i + 1);
  }
  return found;
}
