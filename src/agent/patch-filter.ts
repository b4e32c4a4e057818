import { PATCH_EXCLUDES } from "../config/template-vars.js";

/** A file section taken out of a submitted patch, and why. */
export interface DroppedFile {
  path: string;
  /**
   * `binary`: "Binary files ... differ" (no content: no tool can apply it, and the harness's
   * fallback then applies the rest wrongly); `build artifact`: a new file PATCH_EXCLUDES names
   * (bytecode, compiled extensions, packaging metadata, node_modules, build output).
   */
  reason: "binary" | "build artifact";
}

/** PATCH_EXCLUDES as full-path matchers (git's `*` crosses `/`; `[co]` is a class). */
const EXCLUDED = PATCH_EXCLUDES.map(
  (p) =>
    new RegExp(
      `^${p
        .split(/(\*|\[[^\]]*\])/)
        .map((part) =>
          part === "*" ? ".*" : part.startsWith("[") ? part : part.replace(/[.*+?^${}()|\\]/g, "\\$&"),
        )
        .join("")}$`,
    ),
);

/** Whether a path is one PATCH_EXCLUDES keeps out of patches as a new file. */
export function isBuildArtifact(path: string): boolean {
  return EXCLUDED.some((re) => re.test(path));
}

/** `diff --git a/X b/X`, either side quoted as git quotes unusual names (`"b/my file"`). */
const HEADER = /^diff --git (?:"a\/.*"|a\/.*) (?:"b\/(.*)"|b\/(.*))$/;

/** The path a `diff --git` header names (its new side; a quoted one without its quotes). */
function pathOf(header: string): string {
  const m = HEADER.exec(header);
  return m ? (m[1] ?? m[2]) : header.slice("diff --git ".length);
}

/**
 * A submitted patch without what can only harm it, whatever command produced it: file sections
 * that are "Binary files ... differ" (their content is missing), and new files that PATCH_EXCLUDES
 * names (bytecode and build output a classic `git add -A && git diff --cached` sweeps in when the
 * repository does not ignore them). Everything else, text outside `diff --git` sections included,
 * is kept byte for byte. Says what it dropped.
 */
export function cleanPatch(patch: string): { patch: string; dropped: DroppedFile[] } {
  if (!patch.includes("diff --git ")) return { patch, dropped: [] };
  const lines = patch.split(/(?<=\n)/);
  const kept: string[] = [];
  const dropped: DroppedFile[] = [];
  let section: string[] = [];
  let path: string | null = null;
  const close = () => {
    if (path === null) kept.push(...section);
    else {
      const body = section.join("");
      const isNew = /^new file mode /m.test(body);
      const binary = /^Binary files .* differ$/m.test(body);
      const reason = binary ? "binary" : isNew && isBuildArtifact(path) ? "build artifact" : null;
      if (reason) dropped.push({ path, reason });
      else kept.push(...section);
    }
    section = [];
  };
  for (const line of lines) {
    if (line.startsWith("diff --git ")) {
      close();
      path = pathOf(line.replace(/\n$/, ""));
    }
    section.push(line);
  }
  close();
  return dropped.length === 0 ? { patch, dropped } : { patch: kept.join(""), dropped };
}

/**
 * Whether two patches change the same files the same way: compared without `index` lines (blob
 * ids depend on how the files were staged) and trailing white space.
 */
export function samePatch(a: string, b: string): boolean {
  const norm = (p: string) =>
    p
      .split("\n")
      .filter((l) => !l.startsWith("index "))
      .map((l) => l.trimEnd())
      .join("\n")
      .trim();
  return norm(a) === norm(b);
}
