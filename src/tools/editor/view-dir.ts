import { shellQuote } from "../../util/shell-quote.js";
import type { ToolContext } from "../base/types.js";
import { EditorError } from "./file-access.js";

interface Entry {
  /** Path relative to the listed directory, `/`-separated. */
  rel: string;
  dir: boolean;
}

/** Orders paths segment by segment, so a directory's entries follow it directly. */
function compareEntries(a: Entry, b: Entry): number {
  const sa = a.rel.split("/");
  const sb = b.rel.split("/");
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    if (sa[i] !== sb[i]) return sa[i] < sb[i] ? -1 : 1;
  }
  return sa.length - sb.length;
}

/**
 * Lists the non-hidden entries of a directory two levels deep (directories marked with a trailing
 * `/`), with `find` run in the environment; hidden entries and everything below them are left out.
 */
export async function renderDirView(ctx: ToolContext, path: string, limit: number): Promise<string> {
  const root = path.length > 1 ? path.replace(/\/+$/, "") : path;
  // Listing `DIR/.` makes find enter DIR even when DIR is a symbolic link to a directory.
  const start = root === "/" ? "/." : `${root}/.`;
  const command =
    `find ${shellQuote(start)} -mindepth 1 -maxdepth 2 -name '.*' -prune ` +
    `-o -type d -exec printf 'd %s\\n' {} + -o -exec printf 'f %s\\n' {} +`;
  const result = await ctx.env.exec(command, { timeout: ctx.timeout });
  const prefix = `${start}/`;
  const entries: Entry[] = [];
  const problems: string[] = [];
  for (const line of result.output.split("\n")) {
    const m = /^([df]) (.*)$/.exec(line);
    if (m?.[2].startsWith(prefix)) entries.push({ rel: m[2].slice(prefix.length), dir: m[1] === "d" });
    else if (line.trim()) problems.push(line.trim());
  }
  if (entries.length === 0 && result.returncode !== 0) {
    throw new EditorError(
      `Could not list ${path}: ${result.output.trim() || `exit status ${result.returncode}`}`,
    );
  }
  if (entries.length === 0) return `${path} is an empty directory (or holds only hidden entries).`;
  entries.sort(compareEntries);
  const lines = [`${path}, entries up to 2 levels deep (hidden ones left out):`];
  let used = 0;
  let shown = 0;
  for (const e of entries) {
    const line = e.dir ? `${e.rel}/` : e.rel;
    if (used + line.length + 1 > limit) break;
    lines.push(line);
    used += line.length + 1;
    shown++;
  }
  if (shown < entries.length) {
    lines.push(
      `[Clipped: ${shown} of ${entries.length} entries shown. View a subdirectory for the rest, ` +
        `or search with find ${root} -name 'PATTERN'.]`,
    );
  }
  if (problems.length > 0) lines.push(`(some entries could not be listed: ${problems[0]})`);
  return lines.join("\n");
}
