import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Builds dist/ (and the bundle bin/patchloop.js loads) once so tests that spawn the real CLI run the
 * current sources. Type errors do not
 * stop the tests here (tsc still emits); `npm run typecheck` is the gate for those.
 *
 * The history cache of work trees (src/swebench/batch/history-cache.ts) goes to a folder of this
 * test run, removed at the end, instead of the user's ~/.cache.
 */
export default function setup(): () => void {
  const r = spawnSync("npx", ["tsc", "-p", "tsconfig.json"], { encoding: "utf8" });
  if (r.status !== 0)
    process.stderr.write(
      `[global-setup] tsc reported problems (dist/ was still built):\n${r.stdout}${r.stderr}\n`,
    );
  // bin/patchloop.js loads the bundle made from dist/src/ (rolldown.config.mjs)
  const b = spawnSync("npx", ["rolldown", "-c", "rolldown.config.mjs", "--logLevel", "warn"], {
    encoding: "utf8",
  });
  if (b.status !== 0) throw new Error(`[global-setup] bundling dist/ failed:\n${b.stdout}${b.stderr}`);
  const own = process.env.PATCHLOOP_HISTORY_CACHE
    ? undefined
    : mkdtempSync(join(tmpdir(), "patchloop-test-history-"));
  if (own) process.env.PATCHLOOP_HISTORY_CACHE = own;
  return () => {
    if (own) rmSync(own, { recursive: true, force: true });
  };
}
