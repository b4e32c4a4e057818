import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/tmp.js";

const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "patchloop.js");
const HOOK = join(import.meta.dirname, "fixtures", "argv-log.mjs");

/** The node flags and arguments of the node process that `argv` ends up running. */
function started(argv: string[]): { execArgv: string[]; args: string[]; v8Flags: string[]; stdout: string } {
  const log = join(tempDir(), "argv.json");
  const r = spawnSync(argv[0], argv.slice(1), {
    encoding: "utf8",
    env: {
      ...process.env,
      PATCHLOOP_ARGV_LOG: log,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${HOOK}`.trim(),
    },
  });
  expect(r.status, r.stderr).toBe(0);
  return { ...JSON.parse(readFileSync(log, "utf8")), stdout: r.stdout };
}

describe("bin/patchloop.js starts node with the flags of a process that mostly waits", () => {
  it("run as a program: a 2 MB young generation, no baseline compiler, on Node 20 a late optimizer; arguments intact", () => {
    const args = ["--version", "two words", "$HOME", "*", "a\"b'c", ""];
    const s = started([BIN, ...args]);
    // flags every Node from 20 on knows: an unknown one would stop node before patchloop starts
    expect(s.execArgv).toEqual(["--max-semi-space-size=2", "--no-sparkplug"]);
    // the optimizer's budget is a flag of Node 20's V8 alone, set once the process runs
    const node20 = process.versions.node.split(".")[0] === "20";
    expect(s.v8Flags).toEqual(
      node20 ? ["--interrupt-budget=4000000 --max-bytecode-size-for-early-opt=0"] : [],
    );
    expect(s.args).toEqual(args);
    expect(s.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
  });

  it("run as `node bin/patchloop.js`: node's own defaults", () => {
    const s = started([process.execPath, BIN, "--version"]);
    expect(s.execArgv).toEqual([]);
    expect(s.v8Flags).toEqual([]);
    expect(s.args).toEqual(["--version"]);
  });
});
