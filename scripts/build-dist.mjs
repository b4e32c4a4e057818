#!/usr/bin/env node
// The one build of dist/ (tsc to dist/src/, then rolldown bundles the CLI into dist/bundle/) and
// the one stamp that says what it was made from. `npm run build`, ./start.sh and the tests'
// global set-up all come here, so a build by any of them is taken as up to date by the others.
//
//   node scripts/build-dist.mjs                 build now (what `npm run build` runs)
//   node scripts/build-dist.mjs --if-stale      build only when dist/ is not what the sources make
//   --allow-type-errors                         keep going when tsc reports type errors (tsc still
//                                               emits; the tests use it: `npm run typecheck` is the gate)
//
// A build goes into a folder of its own beside dist/ and replaces dist/ by a rename only once it
// is whole, so a `patchloop` started meanwhile finds the old build or the new one, never a half one.
// dist/.build-stamp (written into the new build before the swap) holds each input file's hash and a
// hash of every output file's path, size and modification time: a dist/ that something else
// changed afterwards is never taken for one made here. Plain Node, no packages: start.sh runs it.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export const STAMP_NAME = ".build-stamp";
/** What `npm run build` reads: the sources it compiles and the files that say how. */
const INPUT_DIRS = ["src", "bench"];
const INPUT_FILES = ["package.json", "package-lock.json", "tsconfig.json", "rolldown.config.mjs"];
/** A build folder's name starts so (beside dist/, at its depth: source maps and paths stay right). */
const BUILD_PREFIX = ".dist-build-";

/** Every file under `dir`, as paths relative to `base`, sorted. */
function filesUnder(base, dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) found.push(...filesUnder(base, path));
    else if (e.isFile()) found.push(relative(base, path));
  }
  return found.sort();
}

/** Each input file's sha256, keyed by its path from the checkout's root. */
export function inputHashes(root) {
  const files = [...INPUT_DIRS.flatMap((d) => filesUnder(root, join(root, d))), ...INPUT_FILES].sort();
  const hashes = {};
  for (const f of files) {
    const path = join(root, f);
    hashes[f] = existsSync(path) ? createHash("sha256").update(readFileSync(path)).digest("hex") : "(absent)";
  }
  return hashes;
}

/** Hash of what a build folder holds (each file's path, size and modification time; the stamp left out). */
export function outputsHash(dir) {
  const h = createHash("sha256");
  for (const f of filesUnder(dir, dir)) {
    if (f === STAMP_NAME) continue;
    const s = statSync(join(dir, f));
    h.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return h.digest("hex");
}

/** `n thing` or `n things`. */
function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Whether dist/ is what the current sources make: `{ fresh: true }`, or `{ fresh: false, reason }`
 * with the reason in words (what is missing, which files changed).
 */
export function distState(root) {
  const dist = join(root, "dist");
  if (!existsSync(dist)) return { fresh: false, reason: "there is no dist/ yet" };
  const stampPath = join(dist, STAMP_NAME);
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampPath, "utf8"));
  } catch {
    return { fresh: false, reason: `dist/ has no ${STAMP_NAME} (made by an older or another build)` };
  }
  if (
    typeof stamp !== "object" ||
    stamp === null ||
    typeof stamp.inputs !== "object" ||
    stamp.inputs === null
  )
    return { fresh: false, reason: `dist/${STAMP_NAME} is not a stamp this script wrote` };
  const now = inputHashes(root);
  const changed = [...new Set([...Object.keys(now), ...Object.keys(stamp.inputs)])]
    .filter((f) => now[f] !== stamp.inputs[f])
    .sort();
  if (changed.length > 0) {
    const named = changed.slice(0, 3).join(", ");
    const more = changed.length > 3 ? ` and ${changed.length - 3} more` : "";
    return {
      fresh: false,
      reason: `${count(changed.length, "file")} changed since the last build (${named}${more})`,
    };
  }
  if (stamp.outputs !== outputsHash(dist))
    return { fresh: false, reason: "dist/ was changed after the last build (something else wrote into it)" };
  return { fresh: true };
}

function tool(root, name, args, env) {
  const bin = join(root, "node_modules", ".bin", name);
  if (!existsSync(bin))
    return { ok: false, output: `${bin} is missing: install the dependencies first (npm ci)` };
  const r = spawnSync(bin, args, { cwd: root, encoding: "utf8", env: { ...process.env, ...env } });
  return {
    ok: r.status === 0,
    output: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}`,
  };
}

/**
 * Builds into a folder of its own, stamps it, then puts it in dist/'s place. Throws an Error saying
 * what failed (dist/ is then left as it was). With `allowTypeErrors`, tsc's type errors go to
 * `warn` and the build goes on.
 */
export function buildDist(root, { allowTypeErrors = false, warn = (t) => process.stderr.write(t) } = {}) {
  const dist = join(root, "dist");
  const inputs = inputHashes(root);
  const name = `${BUILD_PREFIX}${process.pid}-${randomBytes(4).toString("hex")}`;
  const out = join(root, name);
  try {
    const tsc = tool(root, "tsc", ["-p", "tsconfig.json", "--outDir", name]);
    if (!tsc.ok) {
      if (!allowTypeErrors || !existsSync(join(out, "src"))) throw new Error(`tsc failed:\n${tsc.output}`);
      warn(`[build-dist] tsc reported problems (dist/ was still built):\n${tsc.output}\n`);
    }
    const bundle = tool(root, "rolldown", ["-c", "rolldown.config.mjs", "--logLevel", "warn"], {
      PATCHLOOP_DIST_DIR: out,
    });
    if (!bundle.ok) throw new Error(`bundling failed (rolldown):\n${bundle.output}`);
    // What each built-in config parses to, made by the parser just built (src/config/builtin-snapshot.ts).
    // Without it (a failure is said, not fatal) patchloop parses configs/*.yaml itself, as before.
    const snapshotModule = join(out, "src", "config", "builtin-snapshot.js");
    if (existsSync(snapshotModule)) {
      const snapshot = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const [s, y] = await Promise.all([import(process.argv[1]), import(process.argv[2])]);
           s.writeBuiltinSnapshot(process.argv[3], y.parseYaml);`,
          pathToFileURL(snapshotModule).href,
          pathToFileURL(join(out, "src", "config", "yaml-file.js")).href,
          join(out, "configs.json"),
        ],
        { cwd: root, encoding: "utf8" },
      );
      if (snapshot.status !== 0)
        warn(
          `[build-dist] dist/configs.json not written (configs/*.yaml are parsed at start-up instead):\n${snapshot.stdout ?? ""}${snapshot.stderr ?? ""}\n`,
        );
    }
    writeFileSync(join(out, STAMP_NAME), `${JSON.stringify({ inputs, outputs: outputsHash(out) })}\n`);
    // The swap: two renames, the old build removed after. Another build finishing at the same
    // moment makes the same files; whichever renames last stays.
    const olds = [];
    for (let tries = 1; ; tries++) {
      try {
        const old = `${out}-old${tries}`;
        if (existsSync(dist)) {
          renameSync(dist, old);
          olds.push(old);
        }
        renameSync(out, dist);
        break;
      } catch (err) {
        if (tries >= 5 || !["ENOTEMPTY", "EEXIST", "ENOENT"].includes(err.code)) throw err;
      }
    }
    for (const old of olds) rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  // build folders left by a build that was killed
  for (const e of readdirSync(root)) {
    if (!e.startsWith(BUILD_PREFIX)) continue;
    const pid = Number(/^\.dist-build-(\d+)-/.exec(e)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) rmSync(join(root, e), { recursive: true, force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/**
 * Builds when dist/ is not what the sources make. Returns `{ built: false }` or
 * `{ built: true, reason }`.
 */
export function ensureDist(root, options = {}) {
  const state = distState(root);
  if (state.fresh) return { built: false };
  buildDist(root, options);
  return { built: true, reason: state.reason };
}

const invoked = process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename);
if (invoked) {
  const args = process.argv.slice(2);
  const known = ["--if-stale", "--allow-type-errors"];
  const unknown = args.filter((a) => !known.includes(a));
  if (unknown.length > 0) {
    process.stderr.write(`build-dist: unknown argument ${unknown[0]} (known: ${known.join(", ")})\n`);
    process.exit(2);
  }
  const root = resolve(import.meta.dirname, "..");
  const options = { allowTypeErrors: args.includes("--allow-type-errors") };
  try {
    if (args.includes("--if-stale")) {
      const state = distState(root);
      if (state.fresh) {
        process.stdout.write("patchloop: build up to date (no source changed since the last build)\n");
        process.exit(0);
      }
      process.stdout.write(`patchloop: building dist/: ${state.reason}\n`);
    }
    buildDist(root, options);
  } catch (err) {
    process.stderr.write(`patchloop: the build failed, dist/ is left as it was: ${err.message}\n`);
    process.exit(1);
  }
}
