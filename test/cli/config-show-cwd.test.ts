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

describe("config show without --instance", () => {
  it("local: the pattern of a batch's checkout path, not the config's /testbed", async () => {
    const r = await runPatchloop(["config", "show", "-c", "swebench", "--environment", "local"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `# cwd shown to the model: ${join(tmpdir(), "patchloop")}/<instance_id> (environment local: a SWE-bench ` +
        "batch's checkout; patchloop run shows its worktree of --repo, or --repo itself with --in-place)\n",
    );
    const bwrap = await runPatchloop(["config", "show", "-c", "swebench", "--environment", "bwrap"]);
    expect(bwrap.stdout).toContain("# cwd shown to the model: /testbed (environment bwrap)\n");
  });
});

describe("localize --help", () => {
  it("offers only the environments localize reads from, and refuses the others with the way that works", async () => {
    const help = await runPatchloop(["localize", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, " ")).toContain(
      "--environment <KIND> docker or podman: read each repository in a container of its instance image (else --repos-dir)",
    );
    expect(help.stdout).not.toContain("local, bwrap");
    const local = await runPatchloop(["localize", "--environment", "local", "-o", join(tmpdir(), "x.jsonl")]);
    expect([local.code, local.stderr]).toEqual([
      2,
      "error: --environment local: localize reads a repository from a docker or podman container of the instance image; for a local checkout give --repos-dir DIR\n",
    ]);
  });
});
