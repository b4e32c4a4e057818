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

/**
 * Whether a file a patch creates is a scratch file: a new script (`.py`, `.sh`) or dotfile in the
 * repository root, beside the code rather than in it (an agent's `reproduce_bug.py`, a
 * `.coveragerc`). Nothing the repository runs imports it, so it changes no behaviour; it is left
 * out of a patch's code like a test file. A root `setup.py` or `__init__.py` is not one.
 */
export function isScratchFile(file: { path: string; created: boolean }): boolean {
  if (!file.created || file.path.includes("/")) return false;
  if (file.path === "setup.py" || file.path === "__init__.py") return false;
  return /\.(py|sh)$/.test(file.path) || file.path.startsWith(".");
}
