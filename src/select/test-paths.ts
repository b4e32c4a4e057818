/**
 * Whether a repository path is a test file or test helper (by the conventions of Python projects:
 * a `tests`/`test`/`testing` folder, `test_*.py`, `*_test.py`, `tests.py`, `conftest.py`). Used to
 * drop candidates that only touch tests and to find a repository's existing tests.
 */
export function isTestPath(path: string): boolean {
  const parts = path.split("/");
  const name = parts.at(-1) ?? "";
  if (parts.slice(0, -1).some((p) => p === "tests" || p === "test" || p === "testing")) return true;
  return (
    /^test_.*\.py$/.test(name) || /_tests?\.py$/.test(name) || name === "tests.py" || name === "conftest.py"
  );
}

/** Whether a path is a Python test module (a file the test runner collects), not a helper such as conftest.py. */
export function isTestModule(path: string): boolean {
  const name = path.split("/").at(-1) ?? "";
  return /^test_.*\.py$/.test(name) || /_tests?\.py$/.test(name) || name === "tests.py";
}
