/**
 * Which files a diff touches, read the way the harness reads them: `get_modified_files`
 * (the `a/` source paths that are not /dev/null; unidiff semantics) and `get_test_directives`
 * (the `b/` paths of `diff --git` headers, minus non-test extensions, django-style modules).
 */

/** Extensions the harness drops from test directives (note `csv` has no dot, as in the harness). */
export const NON_TEST_EXTS = [
  ".json",
  ".png",
  "csv",
  ".txt",
  ".md",
  ".jpg",
  ".jpeg",
  ".pkl",
  ".yml",
  ".yaml",
  ".toml",
];

interface FileEntry {
  source: string;
  target: string;
  fromGitHeader: boolean;
  sawMinusLine: boolean;
}

/**
 * One entry per file section of a unified or git diff, with its source and target names. Hunk
 * bodies are skipped by their line counts (as unidiff does), so a removed line that reads
 * `-- comment` is not taken for a `--- file` header.
 */
export function diffFiles(patch: string): FileEntry[] {
  const files: FileEntry[] = [];
  let current: FileEntry | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of patch.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      const kind = line[0];
      if (kind === "-") oldLeft--;
      else if (kind === "+") newLeft--;
      else if (kind !== "\\") {
        oldLeft--;
        newLeft--;
      }
      continue;
    }
    const git = /^diff --git (a\/[^\t\n]+) (b\/[^\t\n]+)/.exec(line);
    if (git) {
      current = { source: git[1], target: git[2], fromGitHeader: true, sawMinusLine: false };
      files.push(current);
    } else if (current && line.startsWith("new file mode ")) current.source = "/dev/null";
    else if (current && line.startsWith("deleted file mode ")) current.target = "/dev/null";
    else if (line.startsWith("--- ")) {
      const name = /^--- ([^\t\n]+)/.exec(line)?.[1] ?? "";
      if (current?.fromGitHeader && !current.sawMinusLine) {
        current.source = name;
        current.sawMinusLine = true;
      } else {
        current = { source: name, target: "", fromGitHeader: false, sawMinusLine: true };
        files.push(current);
      }
    } else if (current && line.startsWith("+++ "))
      current.target = /^\+\+\+ ([^\t\n]+)/.exec(line)?.[1] ?? "";
    else {
      const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
      if (hunk && current) {
        oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
        newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
        current.sawMinusLine = true;
      }
    }
  }
  return files;
}

/** `get_modified_files`: the files the patch changes that exist before it (reset to the base commit). */
export function getModifiedFiles(patch: string): string[] {
  return diffFiles(patch)
    .map((f) => f.source)
    .filter((s) => s !== "/dev/null" && s.startsWith("a/"))
    .map((s) => s.slice(2));
}

/** The files the patch creates (v5 removes them after the run instead of checking them out). */
export function getNewFiles(patch: string): string[] {
  return diffFiles(patch)
    .filter((f) => f.source === "/dev/null" && f.target.startsWith("b/"))
    .map((f) => f.target.slice(2));
}

/**
 * `get_test_directives`: every `diff --git a/.* b/(.*)` path of the test patch, minus those
 * ending in a non-test extension; for django, `.py` and a leading `tests/` stripped and `/`
 * turned into `.` (`tests/model_fields/test_x.py` -> `model_fields.test_x`).
 */
export function getTestDirectives(repo: string, testPatch: string): string[] {
  const directives = [...testPatch.matchAll(/diff --git a\/[^\n]* b\/([^\n]*)/g)]
    .map((m) => m[1])
    .filter((d) => !NON_TEST_EXTS.some((ext) => d.endsWith(ext)));
  if (repo !== "django/django") return directives;
  return directives.map((d) => {
    let out = d.endsWith(".py") ? d.slice(0, -3) : d;
    if (out.startsWith("tests/")) out = out.slice("tests/".length);
    return out.replaceAll("/", ".");
  });
}
