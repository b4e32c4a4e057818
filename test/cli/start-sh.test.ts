import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/tmp.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * A checkout of its own holding the real start.sh, the files its set-up reads, and a
 * bin/patchloop.js that prints the arguments it was given; an `npm` first on PATH records each
 * call and does what `npm ci` and `npm run build` leave behind (or fails the build when told to).
 */
function checkout() {
  const dir = join(tempDir(), "patchloop");
  mkdirSync(join(dir, "src", "cli"), { recursive: true });
  mkdirSync(join(dir, "bench"));
  mkdirSync(join(dir, "bin"));
  copyFileSync(join(ROOT, "start.sh"), join(dir, "start.sh"));
  for (const f of ["package.json", "package-lock.json", "tsconfig.json", "rolldown.config.mjs"])
    writeFileSync(join(dir, f), `${f}\n`);
  writeFileSync(join(dir, "src", "cli", "main.ts"), "export const a = 1;\n");
  writeFileSync(join(dir, "bench", "index.ts"), "export const b = 1;\n");
  writeFileSync(join(dir, "bin", "patchloop.js"), '#!/bin/sh\necho "patchloop $*"\n');
  chmodSync(join(dir, "bin", "patchloop.js"), 0o755);
  const fake = join(dir, "..", "fake-bin");
  mkdirSync(fake);
  const log = join(dir, "..", "npm.log");
  writeFileSync(
    join(fake, "npm"),
    [
      "#!/bin/bash",
      `echo "npm $*" >>${log}`,
      'case "$1" in',
      "  ci) mkdir -p node_modules && echo installed >node_modules/dep.js ;;",
      '  run) mkdir -p dist/bundle && echo built >dist/bundle/main.js; [ -z "$FAKE_BUILD_FAILS" ] || exit 1 ;;',
      "esac",
    ].join("\n"),
  );
  chmodSync(join(fake, "npm"), 0o755);
  const start = (env: Record<string, string> = {}, cwd?: string) => {
    writeFileSync(log, "");
    const r = spawnSync("bash", [join(dir, "start.sh")], {
      ...(cwd ? { cwd } : {}),
      env: {
        PATH: `${fake}:${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: join(dir, "..", "home"),
        ...env,
      },
      encoding: "utf8",
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, npm: readFileSync(log, "utf8") };
  };
  return { dir, start };
}

const NOT_LINKED = (dir: string) =>
  `patchloop: no folder on PATH is writable here, so the command is not linked. Run it as ${dir}/bin/patchloop.js, ` +
  `or link it yourself: mkdir -p ~/.local/bin && ln -s ${dir}/bin/patchloop.js ~/.local/bin/patchloop (with ~/.local/bin on PATH)\n`;
const UP_TO_DATE =
  "patchloop: dependencies up to date (package-lock.json unchanged)\n" +
  "patchloop: build up to date (no source changed since the last build)\n";

describe("start.sh installs and builds only what changed", () => {
  it("a second start runs neither npm ci nor the build; a changed source rebuilds, a changed lock file reinstalls", () => {
    const { dir, start } = checkout();
    const first = start();
    expect(first.status).toBe(0);
    expect(first.npm).toBe("npm ci --no-audit --no-fund\nnpm run build --silent\n");
    expect(first.stdout).toBe(
      `${NOT_LINKED(dir)}PATCHLOOP_MODEL is not set: running the offline demo instead.\npatchloop demo\n`,
    );
    const second = start();
    expect([second.status, second.npm]).toEqual([0, ""]);
    expect(second.stdout).toBe(
      `${UP_TO_DATE}${NOT_LINKED(dir)}PATCHLOOP_MODEL is not set: running the offline demo instead.\npatchloop demo\n`,
    );
    // a source file changed, one added, one removed: each is a rebuild
    writeFileSync(join(dir, "src", "cli", "main.ts"), "export const a = 2;\n");
    expect(start().npm).toBe("npm run build --silent\n");
    writeFileSync(join(dir, "src", "cli", "extra.ts"), "export const c = 1;\n");
    expect(start().npm).toBe("npm run build --silent\n");
    rmSync(join(dir, "src", "cli", "extra.ts"));
    expect(start().npm).toBe("npm run build --silent\n");
    writeFileSync(join(dir, "tsconfig.json"), "{}\n");
    expect(start().npm).toBe("npm run build --silent\n");
    expect(start().npm).toBe("");
    writeFileSync(join(dir, "package-lock.json"), "another lock\n");
    expect(start().npm).toBe("npm ci --no-audit --no-fund\nnpm run build --silent\n");
    rmSync(join(dir, "node_modules"), { recursive: true });
    expect(start().npm).toBe("npm ci --no-audit --no-fund\n");
  });

  it("never takes a failed build or a dist/ changed by another build for an up-to-date one", () => {
    const { dir, start } = checkout();
    const failed = start({ FAKE_BUILD_FAILS: "1" });
    expect(failed.status).toBe(1);
    expect(failed.npm).toBe("npm ci --no-audit --no-fund\nnpm run build --silent\n");
    expect(start().npm).toBe("npm run build --silent\n");
    expect(start().npm).toBe("");
    // `npm run build` or the tests' build from other sources wrote dist/: built again
    writeFileSync(join(dir, "dist", "bundle", "main.js"), "built from other sources\n");
    expect(start().npm).toBe("npm run build --silent\n");
    expect(readFileSync(join(dir, "dist", "bundle", "main.js"), "utf8")).toBe("built\n");
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
