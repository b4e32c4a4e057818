import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Environment, ReadFileOptions } from "../../src/environments/types.js";
import type { ToolContext } from "../../src/tools/base/types.js";
import { Editor } from "../../src/tools/editor/editor.js";
import { createStrReplaceEditorTool } from "../../src/tools/str-replace-editor.js";
import { describeWithEngine } from "../support/engines.js";
import { tempDir } from "../support/tmp.js";
import { hostileConfig, makeWorkRepo, openSandbox, type Sandbox } from "./support.js";

/**
 * The editor checks a file's size, then reads it: a file swapped for a huge sparse one in between
 * is refused after at most the limit and one byte were read (the old read took all 600 MB), a file
 * swapped for a pipe is refused at once (the old read waited for a writer forever), in every
 * environment. And text with a NUL byte is never written: the editor could not open the file again.
 */

const HUGE = "600M";
const TEXT_LIMIT = 1_000_000;
const VIEW_LIMIT = 5_000_000;

/**
 * `env` with a hook between the editor's checks and its read: the first readFile of `path` runs
 * `swap` in the environment, then reads; every readFile's result length is kept in `reads`.
 */
function swapBeforeRead(env: Environment, path: string, swap: string) {
  const reads: number[] = [];
  let armed = true;
  const wrapped: Environment = {
    ...env,
    kind: env.kind,
    cwd: env.cwd,
    exec: (command, opts) => env.exec(command, opts),
    async readFile(p: string, options?: ReadFileOptions) {
      if (armed && p === path) {
        armed = false;
        const swapped = await env.exec(swap);
        if (swapped.returncode !== 0) throw new Error(`the swap failed: ${swapped.output}`);
      }
      const bytes = await env.readFile(p, options);
      reads.push(bytes.length);
      return bytes;
    },
  };
  return { env: wrapped, reads };
}

const tooLarge = (path: string) =>
  `${path} is larger than the editor's limit of 1.0 MB for one file, so it was not opened. ` +
  `Look at parts of it from the shell instead, e.g. grep -n 'PATTERN' ${path} or sed -n '100,160p' ${path}.`;

function swapSuite(sandbox: Sandbox | "local") {
  let env: Environment;
  let repo: string;
  beforeAll(async () => {
    repo = makeWorkRepo(mkdtempSync(join(tmpdir(), "patchloop-sec-swap-")));
    const config =
      sandbox === "local"
        ? hostileConfig("bwrap", ["environment.environment_class=local"])
        : hostileConfig(sandbox);
    env = await openSandbox(config, repo);
  });
  afterAll(async () => {
    await env.close();
    rmSync(repo, { recursive: true, force: true });
  });

  for (const command of ["view", "str_replace"] as const) {
    it(`${command}: a small file swapped for a ${HUGE} sparse one after the size check is refused, read no further than the limit`, async () => {
      const path = `${env.cwd}/swap-${command}.txt`;
      await env.writeFile(path, "small\n");
      const hooked = swapBeforeRead(env, path, `rm -f ${path} && truncate -s ${HUGE} ${path}`);
      const ctx: ToolContext = { env: hooked.env, timeout: 60, vision: false };
      const editor = new Editor();
      const result =
        command === "view"
          ? await editor.view(ctx, path)
          : await editor.strReplace(ctx, path, "small", "big");
      expect(result).toEqual({ output: tooLarge(path), returncode: 1 });
      expect(hooked.reads).toEqual([(command === "view" ? VIEW_LIMIT : TEXT_LIMIT) + 1]);
      await env.exec(`rm -f ${path}`);
    });
  }
}

describe("the editor on local: checked, then swapped", () => {
  swapSuite("local");

  it("a file swapped for a named pipe after the check is refused at once, not waited on", async () => {
    const repo = makeWorkRepo(join(tempDir(), "repo"));
    const env = await openSandbox(hostileConfig("bwrap", ["environment.environment_class=local"]), repo);
    const path = join(repo, "pipe.txt");
    await env.writeFile(path, "small\n");
    const hooked = swapBeforeRead(env, path, `rm -f ${path} && mkfifo ${path}`);
    const result = await new Editor().view({ env: hooked.env, timeout: 20, vision: false }, path);
    expect(result).toEqual({
      output: `Could not read ${path}: cannot read ${path}: it is not a regular file (a device, a socket or a pipe)`,
      returncode: 1,
    });
    await env.close();
  });
});

describeWithEngine("bwrap", "the editor in bwrap: checked, then swapped", () => swapSuite("bwrap"));
describeWithEngine("docker", "the editor in docker: checked, then swapped", () => swapSuite("docker"));

describe("text with a NUL byte", () => {
  const nul = (what: string, path: string, at: number) =>
    `${what} contains a raw NUL byte (\\0) at character ${at}, so nothing was written: ${path} would then hold ` +
    'binary data, which the editor neither shows nor changes. In code, write the byte as an escape ("\\0" or ' +
    '"\\x00") instead; make a binary file from the shell (printf).';

  it("create, str_replace and insert refuse it and write nothing; the file stays one the editor opens", async () => {
    const repo = makeWorkRepo(join(tempDir(), "repo"));
    const env = await openSandbox(hostileConfig("bwrap", ["environment.environment_class=local"]), repo);
    const ctx: ToolContext = { env, timeout: 20, vision: false };
    const tool = createStrReplaceEditorTool();
    const created = join(repo, "new.py");
    const app = join(repo, "app.py");
    const results = [
      await tool.execute({ command: "create", path: created, file_text: "x = '\0'\n" }, ctx),
      await tool.execute({ command: "str_replace", path: app, old_str: "hello", new_str: "a\0b" }, ctx),
      await tool.execute({ command: "insert", path: app, insert_line: 1, new_str: "\0" }, ctx),
    ];
    expect(results).toEqual([
      { output: nul("file_text", created, 5), returncode: 1 },
      { output: nul("new_str", app, 1), returncode: 1 },
      { output: nul("new_str", app, 0), returncode: 1 },
    ]);
    expect(existsSync(created)).toBe(false);
    expect(readFileSync(app, "utf8")).toBe("print('hello')\n");
    const view = await tool.execute({ command: "view", path: app }, ctx);
    expect(view.returncode).toBe(0);
    await env.close();
  });
});
