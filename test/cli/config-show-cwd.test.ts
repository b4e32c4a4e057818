import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPatchloop } from "../support/cli.js";
import { SWEBENCH_DATA } from "../support/data.js";

const LITE = join(SWEBENCH_DATA, "swe-bench-lite.test.jsonl");
const ID = "pallets__flask-4992";

describe("config show --instance renders the cwd a batch shows the model", () => {
  it.each([
    ["docker", ["-c", "swebench"], "/testbed"],
    ["bwrap", ["-c", "swebench", "--environment", "bwrap"], "/testbed"],
    ["local", ["-c", "swebench", "--environment", "local"], join(tmpdir(), "patchloop", ID)],
  ])("%s", async (kind, args, cwd) => {
    const r = await runPatchloop(["config", "show", ...args, "--subset", LITE, "--instance", ID]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`# cwd shown to the model: ${cwd} (environment ${kind})\n`);
    expect(r.stdout).toMatch(new RegExp(`first user message \\(${ID}\\)[^]*${cwd.replaceAll("/", "\\/")}`));
  });
});
