/** Browser code (see dom.ts): a unified diff with added, removed, hunk and header lines coloured. */
import { el } from "./dom.js";

export function diffLineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "diff-meta";
  if (line.startsWith("diff --git") || line.startsWith("index ")) return "diff-meta";
  if (line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  return "diff-ctx";
}

/** A `pre.diff` with one span per line; an empty patch shows a note. */
export function renderDiff(patch: string): HTMLElement {
  if (patch.trim() === "") return el("p", { class: "muted" }, "(empty patch)");
  const lines = patch.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  return el(
    "pre",
    { class: "diff" },
    ...lines.map((line) => el("span", { class: diffLineClass(line) }, `${line}\n`)),
  );
}
