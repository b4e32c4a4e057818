import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const DIST = join(ROOT, "dist");
/** What the last build made by this module was made from, and what it left in dist/. */
const STAMP = join(DIST, ".test-build");

/** What `npm run build` reads: the sources it compiles and the files that say how. */
const INPUT_DIRS = ["src", "bench"];
const INPUT_FILES = ["package.json", "package-lock.json", "tsconfig.json", "rolldown.config.mjs"];

/** Every file under `dir`, as paths relative to the repository root, sorted. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) found.push(...filesUnder(path));
    else if (e.isFile()) found.push(relative(ROOT, path));
  }
  return found.sort();
}

/** Hash of the build's inputs: each file's path and contents. */
function inputsHash(): string {
  const h = createHash("sha256");
  const files = [...INPUT_DIRS.flatMap((d) => filesUnder(join(ROOT, d))), ...INPUT_FILES].sort();
  for (const f of files) {
    h.update(`${f}\0`);
    h.update(existsSync(join(ROOT, f)) ? readFileSync(join(ROOT, f)) : "(absent)");
    h.update("\0");
  }
  return h.digest("hex");
}

/**
 * Hash of what is in dist/ (each file's path, size and modification time, the stamp left out): a
 * build by anything else (`npm run build`, a bare tsc) changes it, so its output is never taken for
 * this module's.
 */
function outputsHash(): string {
  const h = createHash("sha256");
  for (const f of filesUnder(DIST)) {
    if (join(ROOT, f) === STAMP) continue;
    const s = statSync(join(ROOT, f));
    h.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return h.digest("hex");
}

function run(args: string[]): { ok: boolean; output: string } {
  const r = spawnSync("npx", args, { cwd: ROOT, encoding: "utf8" });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

/**
 * Makes dist/ (and the bundle bin/patchloop.js loads) match the current sources: builds only when
 * the last build made here was from other inputs, or dist/ was changed since. A build starts from
 * an empty dist/, so nothing of an older build is left in it. Type errors do not stop it (tsc
 * still emits; `npm run typecheck` is the gate for those); a failed bundle does.
 * Returns whether it built.
 */
export function ensureDistBuilt(): boolean {
  const inputs = inputsHash();
  if (existsSync(STAMP) && readFileSync(STAMP, "utf8") === `${inputs} ${outputsHash()}\n`) return false;
  rmSync(DIST, { recursive: true, force: true });
  const tsc = run(["tsc", "-p", "tsconfig.json"]);
  if (!tsc.ok)
    process.stderr.write(`[build-dist] tsc reported problems (dist/ was still built):\n${tsc.output}\n`);
  const bundle = run(["rolldown", "-c", "rolldown.config.mjs", "--logLevel", "warn"]);
  if (!bundle.ok) throw new Error(`[build-dist] bundling dist/ failed:\n${bundle.output}`);
  writeFileSync(STAMP, `${inputs} ${outputsHash()}\n`);
  return true;
}
