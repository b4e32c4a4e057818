/**
 * The tests a fix is expected to change (docs/selection.md, step 2): when an issue asks for a
 * function to behave differently, that function's own existing test (`test_<name>`) pins the old
 * behaviour, and a correct patch breaks it. Among candidates breaking equally many tests, the one
 * whose broken tests are more of those (named after a function that its patch changes and the
 * issue text names) is preferred; it never beats one breaking fewer tests.
 */

/** Functions and classes a diff changes: those its hunk headers name and those defined in its hunks. */
export function changedFunctionNames(patch: string): string[] {
  const names = new Set<string>();
  for (const line of patch.split("\n")) {
    const at = /^@@ [^@]* @@(.*)$/.exec(line);
    const text = at ? at[1] : /^[-+ ]/.test(line) && !/^(\+\+\+|---) /.test(line) ? line.slice(1) : null;
    if (text === null) continue;
    for (const m of text.matchAll(/\b(?:def|class)\s+([A-Za-z]\w*)/g)) names.add(m[1]);
  }
  return [...names];
}

/** The function a test id names (`path.py::test_x[param]`, `path.py:test_x`, `test_x`): `test_x`. */
function testFunction(id: string): string {
  const last = id.split(/::|:/).at(-1) ?? id;
  return last.replace(/\[.*$/, "").replace(/\s.*$/, "");
}

/**
 * Of `broke`, the tests named after (`test_<name>`, `test_<name>_...`) a function of `changed` that
 * the issue text names as a word; names shorter than 3 characters are too common to count.
 */
export function expectedToChange(broke: string[], changed: string[], issue: string): string[] {
  const named = changed.filter((n) => n.length >= 3 && new RegExp(`(^|[^\\w])${n}([^\\w]|$)`).test(issue));
  if (named.length === 0) return [];
  return broke.filter((t) => {
    const fn = testFunction(t);
    return named.some((n) => fn === `test_${n}` || fn.startsWith(`test_${n}_`));
  });
}
