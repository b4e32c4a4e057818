import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * Where the recording was made (src/demo/record.ts): its editor calls name absolute paths under
 * it. `patchloop demo` runs in a folder of its own (`makeDemoRoot`) and replays the recording with
 * this path replaced by its own (`demoRecordingFor`), so two demos at once never meet.
 */
export const DEMO_ROOT = "/tmp/patchloop-demo";
export const DEMO_REPO = join(DEMO_ROOT, "textstats");

/** The repository's folder under a demo root. */
export function demoRepoIn(root: string): string {
  return join(root, "textstats");
}

/** A new, empty folder of this run's own under the system's temp folder. */
export function makeDemoRoot(): string {
  return mkdtempSync(join(tmpdir(), "patchloop-demo-"));
}

/**
 * The recording's text with the repository path it was made in replaced by `repo` (as JSON text
 * writes it), so the replayed editor calls name this run's files.
 */
export function demoRecordingFor(recordingText: string, repo: string): string {
  return recordingText.replaceAll(DEMO_REPO, JSON.stringify(repo).slice(1, -1));
}

export const DEMO_TASK = `median() gives the wrong answer for numbers with different digit counts

    import { median } from "./src/stats.js";
    median([2, 10, 3]);   // returns 2, expected 3

mean() is fine. Please fix median so that it works for any list of numbers.`;

const FILES: Record<string, string> = {
  "package.json": `${JSON.stringify({ name: "textstats", version: "1.0.0", type: "module", scripts: { test: "node --test test/" } }, null, 2)}\n`,
  "README.md": "# textstats\n\nSmall statistics helpers: `mean` and `median`.\n",
  "src/stats.js": `/** Arithmetic mean of a non-empty list of numbers. */
export function mean(values) {
  if (values.length === 0) throw new Error("mean of an empty list");
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Median of a non-empty list of numbers. */
export function median(values) {
  if (values.length === 0) throw new Error("median of an empty list");
  const sorted = [...values].sort();
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
`,
  "test/stats.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
import { mean } from "../src/stats.js";

test("mean", () => {
  assert.equal(mean([1, 2, 3, 4]), 2.5);
});
`,
};

/** The test the agent never sees; it grades the patch. */
export const HIDDEN_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { median } from "../src/stats.js";

test("median sorts numerically", () => {
  assert.equal(median([2, 10, 3]), 3);
  assert.equal(median([100, 9, 20, 1]), 14.5);
  assert.equal(median([-5, -40, 7]), -5);
});
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "demo",
      GIT_AUTHOR_EMAIL: "demo@example.com",
      GIT_COMMITTER_NAME: "demo",
      GIT_COMMITTER_EMAIL: "demo@example.com",
    },
  });
}

/** Writes the demo repository afresh at `dir` as one commit; returns the commit id. */
export function writeDemoRepo(dir = DEMO_REPO): string {
  rmSync(dir, { recursive: true, force: true });
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "textstats 1.0.0");
  return git(dir, "rev-parse", "HEAD").trim();
}
