import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localBatchArgs, readJson, trajectory, useFixtureBatch } from "../batch/helpers.js";
import { FIX_COMMAND, SUBMIT_COMMAND } from "../support/fixture-instances.js";
import { bashReply as bash, havePytest, swebench } from "../support/swebench-command.js";
import { tempDir } from "../support/tmp.js";

/**
 * The classic submit (`git add -A && git diff --cached`) in a repository that ignores nothing
 * sweeps bytecode in as "Binary files ... differ" and new build output in: the harness cannot apply
 * such a patch as written, and its fallback grades a correct fix unresolved. The patch in
 * preds.json leaves them out (recorded in the trajectory, warned in run.log), and grades resolved.
 */

describe.skipIf(!havePytest())("patches grade as written", () => {
  const b = useFixtureBatch("patchloop-as-written-", { count: 2, repos: 1 });

  it("bytecode and build output swept in by the classic submit are left out; the fix grades resolved", async () => {
    const row = b.f.rows[0];
    b.server.enqueue(
      bash(
        `${FIX_COMMAND} && /usr/bin/python3 -c "import py_compile, glob; [py_compile.compile(p) for p in glob.glob('pkg0/*.py')]" ` +
          "&& mkdir -p build && echo built > build/out.txt && git status --short",
      ),
      bash(SUBMIT_COMMAND),
    );
    const out = join(tempDir(), "run");
    const r = await swebench([
      ...localBatchArgs(b.f.datasetPath, b.server.url, b.f.reposDir),
      "-o",
      out,
      "--slice",
      "0:1",
      "--evaluate",
    ]);
    expect(r.code, r.err).toBe(0);
    const t = trajectory(out, row.instance_id);
    // the model's own submission held the bytecode and the build output
    const submitted = t.messages.filter((m) => m.role === "tool").map((m) => String(m.content))[1];
    expect(submitted).toMatch(
      /Binary files \/dev\/null and b\/pkg0\/__pycache__\/op1\.cpython-\d+\.pyc differ/,
    );
    expect(submitted).toContain("+++ b/build/out.txt");
    const dropped = (t.info.submission_dropped ?? []).map((d) => `${d.path} (${d.reason})`);
    // in the order of the patch: git sorts its file sections by path
    expect(dropped.map((d) => d.replace(/cpython-\d+/, "cpython-X"))).toEqual([
      "build/out.txt (build artifact)",
      "pkg0/__pycache__/__init__.cpython-X.pyc (binary)",
      "pkg0/__pycache__/op1.cpython-X.pyc (binary)",
    ]);
    const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
    expect(preds[row.instance_id].model_patch).toBe(row.patch);
    const log = readFileSync(join(out, "run.log"), "utf8");
    expect(log).toContain(
      `WARNING: ${row.instance_id}: left out of the submitted patch: ${dropped.join(", ")}\n`,
    );
    expect(r.out).toContain("Resolved 1/1 (100.0%)");
  });

  it("a submission that is not the work tree's diff (the model committed) is warned about and marked in run.json", async () => {
    const row = b.f.rows[1];
    b.server.enqueue(
      bash(`${FIX_COMMAND} && git -c user.name=m -c user.email=m@m commit -qam fix && echo committed`),
      bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"),
    );
    const out = join(tempDir(), "run");
    const r = await swebench([
      ...localBatchArgs(b.f.datasetPath, b.server.url, b.f.reposDir),
      "-o",
      out,
      "--slice",
      "1:2",
    ]);
    expect(r.code, r.err).toBe(0);
    const log = readFileSync(join(out, "run.log"), "utf8");
    expect(log).toContain(
      `WARNING: ${row.instance_id}: the submitted patch differs from the work tree's changes (it is what gets graded); ` +
        "the model may have committed, or printed a diff against another base",
    );
    expect(r.err).toContain(
      `WARNING: ${row.instance_id}: the submitted patch differs from the work tree's changes`,
    );
    const run = readJson<{ instances: Record<string, { patch_differs?: boolean; patch_bytes: number }> }>(
      join(out, "run.json"),
    );
    expect(run.instances[row.instance_id]).toMatchObject({ patch_differs: true, patch_bytes: 0 });
  });
});
