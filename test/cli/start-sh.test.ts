import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/tmp.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * A checkout of its own holding the real start.sh and scripts/build-dist.mjs, the files the build
 * reads, and a bin/patchloop.js that prints the arguments it was given. An `npm` first on PATH
 * records each call; its `ci` does what `npm ci` leaves behind: node_modules anew, with npm's own
 * node_modules/.package-lock.json and a `tsc` and `rolldown` in node_modules/.bin that record each
 * call to the same log and write their output where they are told (tsc fails when told to, or
 * takes its time).
 */
function checkout() {
  const dir = join(tempDir(), "patchloop");
  mkdirSync(join(dir, "src", "cli"), { recursive: true });
  mkdirSync(join(dir, "bench"));
  mkdirSync(join(dir, "bin"));
  mkdirSync(join(dir, "scripts"));
  copyFileSync(join(ROOT, "start.sh"), join(dir, "start.sh"));
  copyFileSync(join(ROOT, "scripts", "build-dist.mjs"), join(dir, "scripts", "build-dist.mjs"));
  for (const f of ["package.json", "package-lock.json", "tsconfig.json", "rolldown.config.mjs"])
    writeFileSync(join(dir, f), `${f}\n`);
  writeFileSync(join(dir, "src", "cli", "main.ts"), "export const a = 1;\n");
  writeFileSync(join(dir, "bench", "index.ts"), "export const b = 1;\n");
  writeFileSync(join(dir, "bin", "patchloop.js"), '#!/bin/sh\necho "patchloop $*"\n');
  chmodSync(join(dir, "bin", "patchloop.js"), 0o755);
  const fake = join(dir, "..", "fake-bin");
  mkdirSync(fake);
  const log = join(dir, "..", "npm.log");
  const tsc = [
    "#!/bin/bash",
    `echo "tsc $*" >>${log}`,
    "for out; do :; done",
    '[ -z "$FAKE_BUILD_SLOW" ] || sleep "$FAKE_BUILD_SLOW"',
    'mkdir -p "$out/src/cli" && echo "compiled $FAKE_BUILD_MARK" >"$out/src/cli/main.js"',
    '[ -z "$FAKE_BUILD_FAILS" ] || { echo "src/cli/main.ts(1,1): error TS1: fake"; exit 2; }',
  ].join("\n");
  const rolldown = [
    "#!/bin/bash",
    `echo "rolldown $*" >>${log}`,
    'mkdir -p "$PATCHLOOP_DIST_DIR/bundle" && echo "bundled $FAKE_BUILD_MARK" >"$PATCHLOOP_DIST_DIR/bundle/main.js"',
  ].join("\n");
  writeFileSync(
    join(fake, "npm"),
    [
      "#!/bin/bash",
      `echo "npm $*" >>${log}`,
      'case "$1" in',
      "  ci) rm -rf node_modules && mkdir -p node_modules/.bin && echo installed >node_modules/dep.js",
      `      cat >node_modules/.bin/tsc <<'EOS'\n${tsc}\nEOS`,
      `      cat >node_modules/.bin/rolldown <<'EOS'\n${rolldown}\nEOS`,
      "      chmod +x node_modules/.bin/* && echo '{}' >node_modules/.package-lock.json ;;",
      "esac",
    ].join("\n"),
  );
  chmodSync(join(fake, "npm"), 0o755);
  const env = (extra: Record<string, string> = {}) => ({
    PATH: `${fake}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: join(dir, "..", "home"),
    ...extra,
  });
  const start = (extra: Record<string, string> = {}, cwd?: string) => {
    writeFileSync(log, "");
    const r = spawnSync("bash", [join(dir, "start.sh")], {
      ...(cwd ? { cwd } : {}),
      env: env(extra),
      encoding: "utf8",
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, npm: readFileSync(log, "utf8") };
  };
  /** What the README's `npm ci && npm test` does to the checkout: a fresh install, then the tests' build. */
  const npmCiAndTestBuild = () => {
    writeFileSync(log, "");
    const ci = spawnSync("npm", ["ci"], { cwd: dir, env: env(), encoding: "utf8" });
    expect(ci.status).toBe(0);
    const built = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { ensureDist } from ${JSON.stringify(join(dir, "scripts", "build-dist.mjs"))};` +
          `console.log(JSON.stringify(ensureDist(${JSON.stringify(dir)}, { allowTypeErrors: true })));`,
      ],
      { env: env(), encoding: "utf8" },
    );
    expect(built.status).toBe(0);
    return { built: JSON.parse(built.stdout), npm: readFileSync(log, "utf8") };
  };
  return { dir, start, env, npmCiAndTestBuild, log };
}

const NOT_LINKED = (dir: string) =>
  `patchloop: no folder on PATH is writable here, so the command is not linked. Run it as ${dir}/bin/patchloop.js, ` +
  `or link it yourself: mkdir -p ~/.local/bin && ln -s ${dir}/bin/patchloop.js ~/.local/bin/patchloop (with ~/.local/bin on PATH)\n`;
const UP_TO_DATE =
  "patchloop: dependencies up to date (package-lock.json unchanged)\n" +
  "patchloop: build up to date (no source changed since the last build)\n";
const DEMO = "PATCHLOOP_MODEL is not set: running the offline demo instead.\npatchloop demo\n";
const INSTALL = "npm ci --no-audit --no-fund\n";
/** What one build runs: tsc into a build folder of its own, then the bundle. */
const BUILD =
  /^tsc -p tsconfig.json --outDir \.dist-build-\d+-[0-9a-f]{8}\nrolldown -c rolldown.config.mjs --logLevel warn\n$/;

describe("start.sh installs and builds only what changed, and says why it does", () => {
  it("a second start runs neither npm ci nor the build; a changed source rebuilds, a changed lock file reinstalls", () => {
    const { dir, start } = checkout();
    const first = start();
    expect(first.status).toBe(0);
    expect(first.npm).toMatch(new RegExp(`^${INSTALL}tsc `));
    expect(first.npm.slice(INSTALL.length)).toMatch(BUILD);
    expect(first.stdout).toBe(
      "patchloop: installing the dependencies (npm ci): node_modules is missing or was not installed to the end\n" +
        `patchloop: building dist/: there is no dist/ yet\n${NOT_LINKED(dir)}${DEMO}`,
    );
    const second = start();
    expect([second.status, second.npm]).toEqual([0, ""]);
    expect(second.stdout).toBe(`${UP_TO_DATE}${NOT_LINKED(dir)}${DEMO}`);
    // a source file changed, one added, one removed: each is a rebuild, naming the files
    writeFileSync(join(dir, "src", "cli", "main.ts"), "export const a = 2;\n");
    let r = start();
    expect(r.npm).toMatch(BUILD);
    expect(r.stdout).toContain(
      "patchloop: building dist/: 1 file changed since the last build (src/cli/main.ts)\n",
    );
    writeFileSync(join(dir, "src", "cli", "extra.ts"), "export const c = 1;\n");
    writeFileSync(join(dir, "src", "cli", "more.ts"), "export const c = 1;\n");
    expect(start().stdout).toContain(
      "patchloop: building dist/: 2 files changed since the last build (src/cli/extra.ts, src/cli/more.ts)\n",
    );
    rmSync(join(dir, "src", "cli", "extra.ts"));
    expect(start().npm).toMatch(BUILD);
    writeFileSync(join(dir, "tsconfig.json"), "{}\n");
    expect(start().npm).toMatch(BUILD);
    expect(start().npm).toBe("");
    writeFileSync(join(dir, "package-lock.json"), "another lock\n");
    r = start();
    expect(r.npm.startsWith(INSTALL)).toBe(true);
    expect(r.npm.slice(INSTALL.length)).toMatch(BUILD);
    expect(r.stdout).toContain(
      "patchloop: installing the dependencies (npm ci): package-lock.json changed since the last install\n",
    );
    rmSync(join(dir, "node_modules"), { recursive: true });
    expect(start().npm).toBe(INSTALL);
  });

  it("after the README's `npm ci && npm test`, the next start neither reinstalls nor rebuilds, and the tests take its build", () => {
    const { dir, start, npmCiAndTestBuild } = checkout();
    expect(start().status).toBe(0);
    // a plain `npm ci` removes node_modules with start.sh's own note; the tests find start.sh's build good
    const tests = npmCiAndTestBuild();
    expect(tests.built).toEqual({ built: false });
    expect(tests.npm).toBe("npm ci\n");
    const again = start();
    expect([again.status, again.npm]).toEqual([0, ""]);
    expect(again.stdout).toBe(
      "patchloop: dependencies up to date (installed by npm after package-lock.json last changed)\n" +
        `patchloop: build up to date (no source changed since the last build)\n${NOT_LINKED(dir)}${DEMO}`,
    );
    // and the other way: a build made by the tests is start.sh's too
    writeFileSync(join(dir, "src", "cli", "main.ts"), "export const a = 3;\n");
    const rebuilt = npmCiAndTestBuild();
    expect(rebuilt.built).toEqual({
      built: true,
      reason: "1 file changed since the last build (src/cli/main.ts)",
    });
    expect(start().stdout).toBe(
      `patchloop: dependencies up to date (installed by npm after package-lock.json last changed)\n` +
        `patchloop: build up to date (no source changed since the last build)\n${NOT_LINKED(dir)}${DEMO}`,
    );
  });

  it("never takes a failed build or a dist/ changed by another build for an up-to-date one", () => {
    const { dir, start } = checkout();
    const failed = start({ FAKE_BUILD_FAILS: "1" });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toBe(
      "patchloop: the build failed, dist/ is left as it was: tsc failed:\nsrc/cli/main.ts(1,1): error TS1: fake\n\n",
    );
    expect(existsSync(join(dir, "dist"))).toBe(false);
    expect(start().npm).toMatch(BUILD);
    expect(start().npm).toBe("");
    // another build wrote into dist/: built again
    writeFileSync(join(dir, "dist", "bundle", "main.js"), "built from other sources\n");
    const r = start();
    expect(r.npm).toMatch(BUILD);
    expect(r.stdout).toContain(
      "patchloop: building dist/: dist/ was changed after the last build (something else wrote into it)\n",
    );
    expect(readFileSync(join(dir, "dist", "bundle", "main.js"), "utf8")).toBe("bundled \n");
    // a failed rebuild leaves the good build in place, and no build folder behind
    writeFileSync(join(dir, "src", "cli", "main.ts"), "export const a = 4;\n");
    expect(start({ FAKE_BUILD_FAILS: "1" }).status).toBe(1);
    expect(readFileSync(join(dir, "dist", "bundle", "main.js"), "utf8")).toBe("bundled \n");
    expect(readdirSync(dir).filter((e) => e.startsWith(".dist-build-"))).toEqual([]);
  });

  it("while a build runs, dist/ holds the previous whole build until the new one replaces it", async () => {
    const { dir, start, env } = checkout();
    expect(start({ FAKE_BUILD_MARK: "one" }).status).toBe(0);
    writeFileSync(join(dir, "src", "cli", "main.ts"), "export const a = 5;\n");
    const build = spawn(process.execPath, [join(dir, "scripts", "build-dist.mjs"), "--if-stale"], {
      env: env({ FAKE_BUILD_SLOW: "2", FAKE_BUILD_MARK: "two" }),
    });
    const exited = new Promise<number | null>((done) => build.on("exit", done));
    const seen = new Set<string>();
    let running = true;
    void exited.then(() => {
      running = false;
    });
    while (running) {
      seen.add(readFileSync(join(dir, "dist", "bundle", "main.js"), "utf8"));
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await exited).toBe(0);
    // read every 20 ms through the 2 s build: never missing (a read would have thrown), never half
    expect(seen.has("bundled one\n")).toBe(true);
    expect([...seen].filter((t) => t !== "bundled one\n" && t !== "bundled two\n")).toEqual([]);
    expect(readFileSync(join(dir, "dist", "bundle", "main.js"), "utf8")).toBe("bundled two\n");
    expect(readFileSync(join(dir, "dist", "src", "cli", "main.js"), "utf8")).toBe("compiled two\n");
  });
});

describe("start.sh turns PATCHLOOP_* into the batch's flags", () => {
  it("passes every setting, the clones folder as --repos-dir, and names the run folder after the subset", () => {
    const { dir, start } = checkout();
    const repos = join(dir, "..", "repos");
    mkdirSync(repos);
    const r = start({
      PATCHLOOP_MODEL: "openai/qwen3-coder",
      PATCHLOOP_SUBSET: "verified",
      PATCHLOOP_SLICE: "3:9",
      PATCHLOOP_WORKERS: "4",
      PATCHLOOP_ENVIRONMENT: "bwrap",
      PATCHLOOP_REPOS_DIR: repos,
      PATCHLOOP_CONFIG: "swebench_edittool_budget",
    });
    expect(r.status).toBe(0);
    const ran = r.stdout.trim().split("\n").pop();
    expect(ran).toMatch(
      new RegExp(
        `^patchloop swebench --subset verified --split test --slice 3:9 -m openai/qwen3-coder -w 4 --environment bwrap ` +
          `--repos-dir ${repos} -c swebench_edittool_budget -o runs/verified-\\d{8}-\\d{6} --evaluate$`,
      ),
    );
    const defaults = start({ PATCHLOOP_MODEL: "openai/m" }).stdout.trim().split("\n").pop();
    expect(defaults).toMatch(
      /^patchloop swebench --subset lite --split test --slice 0:5 -m openai\/m -w 2 --environment docker -c swebench -o runs\/lite-\d{8}-\d{6} --evaluate$/,
    );
  });

  it("reads a relative PATCHLOOP_REPOS_DIR, and a PATCHLOOP_SUBSET file, from the folder start.sh was called from", () => {
    const { dir, start } = checkout();
    const caller = join(dir, "..", "work");
    mkdirSync(join(caller, "repos"), { recursive: true });
    mkdirSync(join(caller, "data"));
    writeFileSync(join(caller, "data", "mine.jsonl"), "{}\n");
    const r = start(
      {
        PATCHLOOP_MODEL: "openai/m",
        PATCHLOOP_ENVIRONMENT: "local",
        PATCHLOOP_REPOS_DIR: "repos",
        PATCHLOOP_SUBSET: "data/mine.jsonl",
      },
      caller,
    );
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split("\n").pop()).toMatch(
      new RegExp(
        `^patchloop swebench --subset ${caller}/data/mine.jsonl --split test --slice 0:5 -m openai/m -w 2 ` +
          `--environment local --repos-dir ${caller}/repos -c swebench -o runs/mine-\\d{8}-\\d{6} --evaluate$`,
      ),
    );
    // a name stays a name, a folder that is not there is named as the caller would read it
    const named = start({ PATCHLOOP_MODEL: "openai/m", PATCHLOOP_SUBSET: "verified" }, caller);
    expect(named.stdout).toMatch(/ --subset verified --split test /);
    const gone = start(
      { PATCHLOOP_MODEL: "openai/m", PATCHLOOP_ENVIRONMENT: "local", PATCHLOOP_REPOS_DIR: "clones" },
      caller,
    );
    expect([gone.status, gone.stdout]).toEqual([
      2,
      `patchloop: PATCHLOOP_REPOS_DIR=${caller}/clones is not a folder: give the folder of git clones, one per repository, named owner__repo\n`,
    ]);
  });

  it("local or bwrap without PATCHLOOP_REPOS_DIR, or a PATCHLOOP_REPOS_DIR that is no folder, stops before the set-up", () => {
    const { dir, start } = checkout();
    for (const environment of ["local", "bwrap"]) {
      const r = start({ PATCHLOOP_MODEL: "openai/m", PATCHLOOP_ENVIRONMENT: environment });
      expect([r.status, r.npm]).toEqual([2, ""]);
      expect(r.stdout).toBe(
        `patchloop: PATCHLOOP_ENVIRONMENT=${environment} runs on clones of the repositories: set PATCHLOOP_REPOS_DIR to ` +
          "a folder with one git clone per repository, named owner__repo (e.g. git clone https://github.com/psf/requests " +
          "repos/psf__requests), or use PATCHLOOP_ENVIRONMENT=docker\n",
      );
    }
    const missing = join(dir, "no-such-folder");
    const r = start({
      PATCHLOOP_MODEL: "openai/m",
      PATCHLOOP_ENVIRONMENT: "local",
      PATCHLOOP_REPOS_DIR: missing,
    });
    expect([r.status, r.npm]).toEqual([2, ""]);
    expect(r.stdout).toBe(
      `patchloop: PATCHLOOP_REPOS_DIR=${missing} is not a folder: give the folder of git clones, one per repository, named owner__repo\n`,
    );
  });
});

describe("start.sh with a GGUF model (PATCHLOOP_MODEL=gguf:PATH)", () => {
  it("passes the file's absolute path, read from where start.sh was called; a missing file stops before the set-up", () => {
    const { dir, start } = checkout();
    const models = join(dir, "..", "models");
    mkdirSync(models);
    writeFileSync(join(models, "tiny.gguf"), "GGUF");
    const r = start({ PATCHLOOP_MODEL: "gguf:models/tiny.gguf" }, join(dir, ".."));
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split("\n").pop()).toMatch(
      new RegExp(
        `^patchloop swebench --subset lite --split test --slice 0:5 -m gguf:${models}/tiny.gguf -w 2 `,
      ),
    );
    const gone = start({ PATCHLOOP_MODEL: "gguf:models/none.gguf" }, join(dir, ".."));
    expect([gone.status, gone.npm]).toEqual([2, ""]);
    expect(gone.stdout).toBe(
      `patchloop: PATCHLOOP_MODEL=gguf:models/none.gguf names no file (${models}/none.gguf): give gguf:PATH with the path of a .gguf model file\n`,
    );
  });
});

describe("README.md names every PATCHLOOP_* variable start.sh reads", () => {
  it("in its table of start.sh's settings", () => {
    const names = (text: string) => [...new Set(text.match(/PATCHLOOP_[A-Z_]+/g))].sort();
    const script = names(readFileSync(join(ROOT, "start.sh"), "utf8"));
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const table = /\| variable \| flag \| default \|\n((?:\|.*\|\n)+)/.exec(readme)?.[1] ?? "";
    expect(script).toContain("PATCHLOOP_SUBSET");
    expect(script).toContain("PATCHLOOP_REPOS_DIR");
    expect(names(table)).toEqual(script);
  });
});
