import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { bash, calcTask, replace, runArgs, SUBMIT_COMMAND } from "../interactive/fixture.js";
import { BIN } from "../interactive/pty.js";

const README = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "README.md");

/** The files README.md says `patchloop run` writes, with DIR and <name> filled in. */
function promised(out: string, name: string): string[] {
  const text = readFileSync(README, "utf8").replace(/\s+/g, " ");
  const sentence =
    /`patchloop run` on a terminal is interactive.*? It writes (.*?); an existing `DIR` is never reused/.exec(
      text,
    )?.[1];
  if (!sentence) throw new Error("README.md no longer says what patchloop run writes");
  return [...sentence.matchAll(/`(DIR\/[^`]+)`/g)].map((m) =>
    m[1].replace("DIR", out).replaceAll("<name>", name),
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("README.md's run section", () => {
  it("lists exactly the files patchloop run writes", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(replace(join(t.worktree, "calc.py"), "a - b", "a + b"), bash(SUBMIT_COMMAND));
    const code = await new Promise<number | null>((done) => {
      const child = spawn(process.execPath, [BIN, ...runArgs(t, server as FakeLlmServer)], {
        cwd: t.dir,
        stdio: "ignore",
      });
      child.on("close", done);
    });
    expect(code).toBe(0);
    const want = promised(t.out, "calc").sort();
    expect(want.map((f) => relative(t.out, f))).toEqual([
      "calc/calc.patch",
      "calc/calc.traj.json",
      "preds.json",
    ]);
    expect(filesUnder(t.out)).toEqual(want);
  });
});
