/**
 * A unified diff read into files and hunks, as much as selection needs: each file's paths, whether
 * it is created or deleted, and each hunk's removed and added lines. Hunk bodies are read by their
 * line counts, so a removed line that reads `-- x` is not a header.
 */

/** One `@@` hunk: its lines without the leading ` `, `-`, `+`. */
export interface Hunk {
  removed: string[];
  added: string[];
  /** Context and changed lines in order, each with its mark (`" "`, `"-"`, `"+"`). */
  lines: Array<{ mark: " " | "-" | "+"; text: string }>;
}

/** One file section of a diff. */
export interface FilePatch {
  /** The path after the patch (`b/` side), or the old one for a deleted file; no `a/`/`b/` prefix. */
  path: string;
  created: boolean;
  deleted: boolean;
  /** `Binary files ... differ` or a `GIT binary patch`: no hunks to read. */
  binary: boolean;
  hunks: Hunk[];
}

function stripPrefix(name: string): string {
  const bare = name.replace(/\t.*$/, "");
  return /^[ab]\//.test(bare) ? bare.slice(2) : bare;
}

/** The files of `patch`, in the order they appear. Text that is not a diff gives none. */
export function parsePatch(patch: string): FilePatch[] {
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let hunk: Hunk | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  const start = (path: string): FilePatch => {
    const f: FilePatch = { path, created: false, deleted: false, binary: false, hunks: [] };
    files.push(f);
    return f;
  };
  for (const line of patch.split("\n")) {
    if (hunk && (oldLeft > 0 || newLeft > 0)) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === "-") {
        oldLeft--;
        hunk.removed.push(text);
        hunk.lines.push({ mark: "-", text });
      } else if (mark === "+") {
        newLeft--;
        hunk.added.push(text);
        hunk.lines.push({ mark: "+", text });
      } else if (mark !== "\\") {
        oldLeft--;
        newLeft--;
        hunk.lines.push({ mark: " ", text });
      }
      continue;
    }
    const git = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (git) {
      file = start(git[2]);
      hunk = undefined;
      continue;
    }
    if (line.startsWith("--- ")) {
      const name = stripPrefix(line.slice(4));
      // a plain unified diff (no `diff --git` line) starts its file here
      if (!file || file.hunks.length > 0) file = start(name === "/dev/null" ? "" : name);
      if (name === "/dev/null") file.created = true;
      continue;
    }
    if (file && line.startsWith("+++ ")) {
      const name = stripPrefix(line.slice(4));
      if (name === "/dev/null") file.deleted = true;
      else file.path = name;
      continue;
    }
    if (file && line.startsWith("new file mode ")) file.created = true;
    else if (file && line.startsWith("deleted file mode ")) file.deleted = true;
    else if (file && (line.startsWith("Binary files ") || line === "GIT binary patch")) file.binary = true;
    else {
      const h = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
      if (h && file) {
        oldLeft = h[1] === undefined ? 1 : Number(h[1]);
        newLeft = h[2] === undefined ? 1 : Number(h[2]);
        hunk = { removed: [], added: [], lines: [] };
        file.hunks.push(hunk);
      }
    }
  }
  return files.filter((f) => f.path !== "");
}

/** Lines the patch adds or removes, in all. */
export function changedLines(files: FilePatch[]): number {
  let n = 0;
  for (const f of files) for (const h of f.hunks) n += h.removed.length + h.added.length;
  return n;
}

/**
 * `patch` without the `diff --git` file sections whose path `drop` accepts (each section kept
 * byte for byte otherwise). A diff without `diff --git` headers is returned as it is.
 */
export function withoutFiles(patch: string, drop: (path: string) => boolean): string {
  if (!patch.includes("diff --git ")) return patch;
  const out: string[] = [];
  let keep = true;
  for (const line of patch.split(/(?<=\n)/)) {
    const m = /^diff --git a\/(.+?) b\/(.+?)\n?$/.exec(line);
    if (m) keep = !drop(m[2]);
    if (keep) out.push(line);
  }
  return out.join("");
}
