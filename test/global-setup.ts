import { spawnSync } from "node:child_process";

/**
 * Builds dist/ once so tests that spawn the real CLI run the current sources. Type errors do not
 * stop the tests here (tsc still emits); `npm run typecheck` is the gate for those.
 */
export default function setup(): void {
  const r = spawnSync("npx", ["tsc", "-p", "tsconfig.json"], { encoding: "utf8" });
  if (r.status !== 0)
    process.stderr.write(
      `[global-setup] tsc reported problems (dist/ was still built):\n${r.stdout}${r.stderr}\n`,
    );
}
