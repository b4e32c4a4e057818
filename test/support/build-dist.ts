import { join } from "node:path";
// The one build of dist/ and its stamp, shared with `npm run build` and ./start.sh.
import { ensureDist } from "../../scripts/build-dist.mjs";

const ROOT = join(import.meta.dirname, "..", "..");

/**
 * Makes dist/ (and the bundle bin/patchloop.js loads) match the current sources: builds only when
 * dist/.build-stamp (whoever wrote it: `npm run build`, ./start.sh or an earlier test run) says it
 * is from other inputs, or dist/ was changed since. The build goes into a folder of its own and
 * replaces dist/ when whole (scripts/build-dist.mjs). Type errors do not stop it (tsc still emits;
 * `npm run typecheck` is the gate for those); a failed bundle does.
 * Returns why it built, or null when it did not.
 */
export function ensureDistBuilt(): string | null {
  const r = ensureDist(ROOT, { allowTypeErrors: true });
  return r.built ? r.reason : null;
}
