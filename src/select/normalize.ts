import { createHash } from "node:crypto";
import { changedLines, type FilePatch, parsePatch } from "./patch-parse.js";
import { isScratchFile, isTestPath } from "./test-paths.js";

/** What normalization makes of one candidate patch. */
export type Normalized =
  | { kind: "empty"; reason: string }
  | { kind: "tests_only"; reason: string; files: string[] }
  | { kind: "scratch_only"; reason: string; files: string[] }
  | {
      kind: "patch";
      /** sha256 of the normalized text: equal for patches that differ only in whitespace and comments. */
      textKey: string;
      /** The files the patch changes outside the tests, sorted. */
      files: string[];
      /** The test and scratch files it also changes (kept in the patch; they do not make it differ). */
      testFiles: string[];
      /** Lines added or removed outside the tests (the tie rule prefers fewer). */
      size: number;
    };

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * A Python line without its comment: a line that is only a comment is dropped, and a trailing
 * `# ...` is cut where the code before it holds no quote (so `"#"` inside a string stays).
 */
function withoutPythonComment(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith("#")) return "";
  const hash = line.indexOf("#");
  if (hash > 0 && !/["']/.test(line.slice(0, hash))) return line.slice(0, hash);
  return line;
}

/** A line with its whitespace runs made one space and its ends trimmed; comments dropped in Python. */
export function normalizeLine(line: string, python: boolean): string {
  const code = python ? withoutPythonComment(line) : line;
  return code.replace(/\s+/g, " ").trim();
}

/** The normalized text of one file's changes: hunks whose removed and added lines normalize the same drop out. */
function fileText(f: FilePatch): string {
  const python = f.path.endsWith(".py");
  const hunks: string[] = [];
  for (const h of f.hunks) {
    const removed = h.removed.map((l) => normalizeLine(l, python)).filter(Boolean);
    const added = h.added.map((l) => normalizeLine(l, python)).filter(Boolean);
    if (removed.join("\n") === added.join("\n")) continue;
    hunks.push([...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)].join("\n"));
  }
  if (f.binary) hunks.push("binary");
  if (hunks.length === 0 && !f.created && !f.deleted) return "";
  return `${f.deleted ? "deleted " : f.created ? "created " : ""}${f.path}\n${hunks.join("\n@@\n")}`;
}

/**
 * Normalizes a candidate patch (step 1 of docs/selection.md): empty text, text that is not a
 * diff, and a diff whose changes are all whitespace or comments are `empty`; a patch that only
 * touches test files is `tests_only`, one that only adds scratch files in the repository root
 * (and perhaps tests) is `scratch_only`; anything else gets a key equal for patches that differ
 * only in whitespace, comments, context lines, hunk positions or the order of files.
 */
export function normalizePatch(patch: string | null): Normalized {
  if (patch === null || patch.trim() === "") return { kind: "empty", reason: "the patch is empty" };
  const files = parsePatch(patch);
  if (files.length === 0) return { kind: "empty", reason: "the text is not a diff (no file sections)" };
  const aside = (f: FilePatch) => isTestPath(f.path) || isScratchFile(f);
  const code = files.filter((f) => !aside(f));
  const tests = files.filter(aside).map((f) => f.path);
  if (code.length === 0) {
    return files.some((f) => !isTestPath(f.path))
      ? {
          kind: "scratch_only",
          reason: `the patch only adds files in the repository root (${tests.join(", ")}): scripts or settings beside the code, which change none of it`,
          files: tests,
        }
      : { kind: "tests_only", reason: `the patch only changes tests (${tests.join(", ")})`, files: tests };
  }
  const texts = code.map(fileText).filter(Boolean).sort();
  if (texts.length === 0) {
    return { kind: "empty", reason: "the patch changes only whitespace or comments outside the tests" };
  }
  return {
    kind: "patch",
    textKey: sha(texts.join("\n\n")),
    files: [...new Set(code.map((f) => f.path))].sort(),
    testFiles: tests,
    size: changedLines(code),
  };
}
