#!/usr/bin/env node
// Maintainer tool, not a command: the tree-sitter grammars (.wasm) the localizer loads are kept in
// assets/grammars/ instead of being installed as whole npm packages (each package also carries C
// sources and native build files: ~200 MB of node_modules for ~14 MB of .wasm). This script takes
// them again from the packages named in assets/grammars/grammars.json.
//
//   node scripts/vendor-grammars.mjs           fetch each package (npm pack, into a temporary
//                                              folder), copy the listed .wasm files and the
//                                              package's licence, record each file's sha256 in
//                                              grammars.json and rewrite assets/grammars/README.md
//   node scripts/vendor-grammars.mjs --check   check the folder against grammars.json: every file
//                                              there, with its recorded sha256, a WebAssembly
//                                              module, its licence copied, README.md up to date
//                                              (no network)
//
// To move a grammar to another version: change its "version" in grammars.json, run the script,
// then `npx vitest run test/localize` (the grammar must suit web-tree-sitter's ABI and the queries
// in src/localize/lang/).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const DIR = join(ROOT, "assets", "grammars");
const MANIFEST = join(DIR, "grammars.json");
const README = join(DIR, "README.md");
const LICENSES = "licenses";

const sha256 = (path) => createHash("sha256").update(readFileSync(path)).digest("hex");
const licenseFile = (pkg) => `${LICENSES}/${pkg}.txt`;

/** The first line of a licence text that names who holds the copyright, if any. */
function copyrightLine(text) {
  return text
    .split("\n")
    .find((l) => /^\s*copyright\b/i.test(l))
    ?.trim();
}

function readme(manifest) {
  const rows = manifest.grammars.flatMap((g) =>
    g.files.map(
      (f) =>
        `| \`${f}\` | [${g.package}](https://www.npmjs.com/package/${g.package}/v/${g.version}) | ${g.version} | ${g.license} ([text](${licenseFile(g.package)})) | \`${g.sha256[f]}\` |`,
    ),
  );
  const notices = manifest.grammars.map((g) => {
    const who = copyrightLine(readFileSync(join(DIR, licenseFile(g.package)), "utf8"));
    return `- ${g.package} ${g.version}: ${g.license}${who ? `, ${who}` : ""}`;
  });
  return `# Vendored tree-sitter grammars

The localizer (\`src/localize/\`) parses source files with tree-sitter through \`web-tree-sitter\`,
which runs each language's grammar compiled to WebAssembly. Only those \`.wasm\` files are needed at
run time, so they are kept here rather than installed as the grammars' npm packages (which also
hold the C sources and native build files, about 200 MB in node_modules). \`src/localize/lang/grammars.ts\`
loads them from this folder, found from patchloop's package root, so a checkout and an installed
package read the same files.

The files are unchanged copies of the ones each package publishes. This file, \`grammars.json\`
(the packages, versions and sha256s) and \`${LICENSES}/\` are written by
\`node scripts/vendor-grammars.mjs\`, which takes the files again from npm;
\`node scripts/vendor-grammars.mjs --check\` checks this folder against \`grammars.json\` without
the network. To change a version, edit it in \`grammars.json\`, run the script, then run
\`npx vitest run test/localize\` (the grammar must match web-tree-sitter's ABI and the queries in
\`src/localize/lang/\`).

| file | package | version | licence | sha256 |
| --- | --- | --- | --- | --- |
${rows.join("\n")}

## Licences

Each package's licence file is copied verbatim into \`${LICENSES}/<package>.txt\` and applies to
the \`.wasm\` files taken from that package:

${notices.join("\n")}
`;
}

function fail(message) {
  process.stderr.write(`vendor-grammars: ${message}\n`);
  process.exit(1);
}

function isWasm(path) {
  const head = readFileSync(path).subarray(0, 4);
  return head.length === 4 && head[0] === 0 && head.toString("latin1", 1) === "asm";
}

function check() {
  const manifest = JSON.parse(readFileSync(MANIFEST, "utf8"));
  const problems = [];
  for (const g of manifest.grammars) {
    if (!existsSync(join(DIR, licenseFile(g.package)))) problems.push(`${licenseFile(g.package)} is missing`);
    for (const f of g.files) {
      const path = join(DIR, f);
      if (!existsSync(path)) problems.push(`${f} is missing`);
      else if (!isWasm(path)) problems.push(`${f} is not a WebAssembly module`);
      else if (sha256(path) !== g.sha256?.[f])
        problems.push(`${f}: sha256 ${sha256(path)}, grammars.json records ${g.sha256?.[f] ?? "none"}`);
    }
  }
  if (problems.length === 0 && readFileSync(README, "utf8") !== readme(manifest))
    problems.push("README.md is not what grammars.json and licenses/ make (run the script again)");
  if (problems.length > 0) fail(`assets/grammars/ does not match grammars.json:\n  ${problems.join("\n  ")}`);
  const n = manifest.grammars.reduce((k, g) => k + g.files.length, 0);
  process.stdout.write(`vendor-grammars: ${n} files match grammars.json\n`);
}

async function vendor() {
  const { extract } = await import("tar"); // a dependency of patchloop's
  const manifest = JSON.parse(readFileSync(MANIFEST, "utf8"));
  const tmp = mkdtempSync(join(tmpdir(), "patchloop-grammars-"));
  try {
    mkdirSync(join(DIR, LICENSES), { recursive: true });
    for (const g of manifest.grammars) {
      const spec = `${g.package}@${g.version}`;
      const packed = spawnSync("npm", ["pack", spec, "--json", "--pack-destination", tmp], {
        encoding: "utf8",
        shell: process.platform === "win32",
      });
      if (packed.status !== 0) fail(`npm pack ${spec} failed:\n${packed.stderr}`);
      const tarball = join(tmp, JSON.parse(packed.stdout)[0].filename);
      const out = join(tmp, g.package);
      mkdirSync(out);
      await extract({ file: tarball, cwd: out, strip: 1 });
      const pkg = JSON.parse(readFileSync(join(out, "package.json"), "utf8"));
      if (pkg.version !== g.version) fail(`${spec}: npm gave version ${pkg.version}`);
      g.license = pkg.license ?? "see licence file";
      const licence = ["LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"].find((f) =>
        existsSync(join(out, f)),
      );
      if (!licence) fail(`${spec} has no licence file`);
      copyFileSync(join(out, licence), join(DIR, licenseFile(g.package)));
      g.sha256 = {};
      for (const f of g.files) {
        const from = join(out, f);
        if (!existsSync(from)) fail(`${spec} has no ${f}`);
        if (!isWasm(from)) fail(`${spec}'s ${f} is not a WebAssembly module`);
        copyFileSync(from, join(DIR, f));
        g.sha256[f] = sha256(join(DIR, f));
      }
      process.stdout.write(`vendor-grammars: ${spec}: ${g.files.join(", ")}\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(README, readme(manifest));
  check();
}

const args = process.argv.slice(2);
if (args.length > 1 || (args.length === 1 && args[0] !== "--check")) {
  process.stderr.write("usage: node scripts/vendor-grammars.mjs [--check]\n");
  process.exit(2);
}
if (args[0] === "--check") check();
else await vendor();
