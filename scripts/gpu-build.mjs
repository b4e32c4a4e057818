#!/usr/bin/env node
// Adds node-llama-cpp's prebuilt GPU build (CUDA or Vulkan) to a checkout, for `-m gguf:PATH` on a GPU.
//
// A checkout's `npm ci` leaves those builds out: package.json's "overrides" point the packages
// @node-llama-cpp/{linux,win}-x64-{cuda,cuda-ext,vulkan} at stubs/no-gpu-build, an empty package,
// so node-llama-cpp finds no GPU binaries and uses its CPU build (the CUDA build with its
// libraries is ~540 MB, the Vulkan one ~80 MB, and a machine without such a GPU never loads them).
// This script fetches the build asked for, at the version of the node-llama-cpp installed here
// (npm pack, the registry's own tarball), and unpacks it in node_modules/node-llama-cpp/node_modules/,
// where node-llama-cpp looks before the stub. package.json and package-lock.json stay as they are.
//
//   node scripts/gpu-build.mjs cuda       the CUDA build and its CUDA libraries (-cuda, -cuda-ext)
//   node scripts/gpu-build.mjs vulkan     the Vulkan build
//   node scripts/gpu-build.mjs remove     take them out again (back to the CPU build)
//
// `npm ci` removes them with the rest of node_modules (./start.sh runs it when package-lock.json
// changed): run this again after it. Linux and Windows on x64 only: macOS on Apple silicon uses
// Metal, which is installed as usual, and node-llama-cpp publishes no GPU builds for other machines.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const RUNTIME = join(ROOT, "node_modules", "node-llama-cpp");
/** Where node-llama-cpp resolves `@node-llama-cpp/<build>` first: its own node_modules. */
const NESTED = join(RUNTIME, "node_modules", "@node-llama-cpp");
const KINDS = { cuda: ["cuda", "cuda-ext"], vulkan: ["vulkan"] };

function fail(message, code = 1) {
  process.stderr.write(`gpu-build: ${message}\n`);
  process.exit(code);
}

function installedVersion(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

const kind = process.argv[2];
if (process.argv.length !== 3 || !(kind in KINDS || kind === "remove"))
  fail("usage: node scripts/gpu-build.mjs cuda|vulkan|remove", 2);

if (kind === "remove") {
  const present = (existsSync(NESTED) ? readdirSync(NESTED) : []).filter((n) =>
    /-(cuda|cuda-ext|vulkan)$/.test(n),
  );
  for (const name of present) rmSync(join(NESTED, name), { recursive: true, force: true });
  process.stdout.write(
    present.length > 0
      ? `gpu-build: removed ${present.map((n) => `@node-llama-cpp/${n}`).join(", ")}; node-llama-cpp uses its CPU build\n`
      : "gpu-build: no GPU build was added here\n",
  );
  process.exit(0);
}

const platform = { linux: "linux", win32: "win" }[process.platform];
if (!platform || process.arch !== "x64")
  fail(
    `node-llama-cpp publishes ${kind} builds for Linux and Windows on x64 only (this is ${process.platform} ${process.arch})`,
  );
const version = installedVersion(RUNTIME);
if (!version) fail(`node-llama-cpp is not installed in ${ROOT}: run npm ci there first`);

const { extract } = await import("tar");
mkdirSync(NESTED, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), "patchloop-gpu-build-"));
try {
  for (const suffix of KINDS[kind]) {
    const name = `${platform}-x64-${suffix}`;
    const spec = `@node-llama-cpp/${name}@${version}`;
    const target = join(NESTED, name);
    if (installedVersion(target) === version) {
      process.stdout.write(`gpu-build: ${spec} is already here\n`);
      continue;
    }
    process.stdout.write(`gpu-build: fetching ${spec} (npm pack)\n`);
    const packed = spawnSync("npm", ["pack", spec, "--json", "--pack-destination", tmp], {
      encoding: "utf8",
      shell: process.platform === "win32",
    });
    if (packed.status !== 0) throw new Error(`npm pack ${spec} failed:\n${packed.stderr}`);
    const tarball = join(tmp, JSON.parse(packed.stdout)[0].filename);
    // unpacked beside its place (the same file system), then renamed into it
    const staged = join(NESTED, `.${name}-${process.pid}`);
    rmSync(staged, { recursive: true, force: true });
    mkdirSync(staged);
    await extract({ file: tarball, cwd: staged, strip: 1 });
    if (installedVersion(staged) !== version || !existsSync(join(staged, "bins"))) {
      rmSync(staged, { recursive: true, force: true });
      throw new Error(
        `${spec}'s tarball is not a node-llama-cpp build (no package.json of that version, or no bins/)`,
      );
    }
    rmSync(target, { recursive: true, force: true });
    renameSync(staged, target);
    process.stdout.write(`gpu-build: ${spec} unpacked in ${target}\n`);
  }
} catch (err) {
  rmSync(tmp, { recursive: true, force: true });
  fail(err.message);
}
rmSync(tmp, { recursive: true, force: true });
process.stdout.write(
  `gpu-build: node-llama-cpp ${version} can now use ${kind === "cuda" ? "CUDA" : "Vulkan"} ` +
    "(model.gguf.gpu_layers: auto, the default, offloads to it; `npx --no node-llama-cpp inspect gpu` shows what it finds)\n",
);
