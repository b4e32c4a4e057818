import { join } from "node:path";
import { localize } from "../../src/localize/localize.js";
import { readWorkTree } from "../../src/localize/read-worktree.js";
import {
  DEFAULT_LIMITS,
  DocStore,
  type ReadLimits,
  type RepoSnapshot,
} from "../../src/localize/repo-files.js";
import type { LocalizedFile } from "../../src/localize/types.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/** A git repository the test writes, read as the localizer reads a checkout (a fresh store each time). */
export async function snapshotOf(
  files: Record<string, string | Buffer>,
  limits: ReadLimits = DEFAULT_LIMITS,
): Promise<{ dir: string; snapshot: RepoSnapshot }> {
  const dir = join(tempDir(), "repo");
  makeRepo(dir, files as Record<string, string>);
  return { dir, snapshot: await readWorkTree(dir, new DocStore(), limits) };
}

export async function ranked(files: Record<string, string | Buffer>, issue: string, topK = 10) {
  const { snapshot } = await snapshotOf(files);
  return localize(issue, snapshot, { topK, topSymbols: 5 });
}

export const paths = (files: LocalizedFile[]) => files.map((f) => f.path);

/** A few lines of plausible Python around a body (so files are not empty and BM25 has text to weigh). */
export function py(body: string, filler = "value"): string {
  return `"""Module docstring."""\nimport os\n\n\n${body}\n\n\ndef _helper_${filler}(x):\n    return os.path.join(str(x), "${filler}")\n`;
}
