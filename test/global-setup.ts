import { execFileSync } from "node:child_process";

/** Builds dist/ once so tests that spawn the real CLI run the current sources. */
export default function setup(): void {
  execFileSync("npx", ["tsc", "-p", "tsconfig.json"], { stdio: "inherit" });
}
