import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { selectRunFolder } from "../../src/select/index.js";
import type { SelectionRecord } from "../../src/select/record.js";
import { MAX_REPO_FILE } from "../../src/select/workbench.js";
import { diffOf, newFileDiff } from "../support/calc-fixture.js";
import { describeWithEngine } from "../support/engines.js";
import { havePytest } from "../support/pytest-skips.js";
import { runFolderOf, selectRow, useSelectFixture } from "./fixture.js";

/**
 * Selection reads a candidate's files only when they are regular files inside the repository, and
 * at most MAX_REPO_FILE bytes of each (issue 41, item 5): a symbolic link a patch adds (to
 * /dev/zero, to a host file) is not followed, and the record says why the candidate has no
 * syntax-tree key.
 */

const ID = "acme__calc-1";

function config(kind: string) {
  return loadConfig({
    configArgs: [
      "swebench",
      `environment.environment_class=${kind}`,
      // only the apply step matters here: it is where the files are read
      "run.select.regression.enabled=false",
      "run.select.examples.enabled=false",
    ],
    defaultConfig: "swebench",
  }).config;
}

function suite(kind: "local" | "bwrap") {
  return () => {
    const sf = useSelectFixture(`patchloop-select-reads-${kind}-`);

    const select = async (patches: string[]): Promise<SelectionRecord> => {
      const run = await selectRunFolder(runFolderOf(sf.root, ID, patches), {
        config: config(kind),
        rows: [selectRow(sf.f)],
        reposDir: sf.f.reposDir,
        python: "/usr/bin/python3",
      });
      return run.records[0];
    };
    /** The good fix and a symbolic link calc/link.py to `target`, in one patch. */
    const withLink = (target: string) => {
      const clone = join(sf.f.reposDir, "acme__calc");
      return `${sf.f.good}${diffOf(clone, () => symlinkSync(target, join(clone, "calc", "link.py")))}`;
    };

    it("a symbolic link to /dev/zero is not read: the candidate has no syntax-tree key, and the record says why", async () => {
      const started = Date.now();
      const rec = await select([withLink("/dev/zero"), sf.f.goodOther]);
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(rec.problems).toEqual([
        'attempt-1: calc/link.py is a symbolic link (to "/dev/zero"); selection reads regular files only; its patch has no syntax-tree key',
      ]);
      expect(rec.candidates[0]).toMatchObject({ status: "patch", files: ["calc/link.py", "calc/ops.py"] });
      expect(rec.candidates[0].ast_key).toBeUndefined();
      expect(rec.candidates[1].ast_key).toMatch(/^[0-9a-f]{64}$/);
    });

    it("a symbolic link to a Python file outside the repository is not read either", async () => {
      const outside = join(sf.root, "outside.py");
      writeFileSync(outside, "SECRET = 1\n");
      const rec = await select([withLink(outside), sf.f.goodOther]);
      expect(rec.problems).toEqual([
        `attempt-1: calc/link.py is a symbolic link (to ${JSON.stringify(outside)}); selection reads regular files only; its patch has no syntax-tree key`,
      ]);
      expect(rec.candidates[0].ast_key).toBeUndefined();
    });

    it("a file over the cap is not read", async () => {
      const lines = Array.from({ length: Math.ceil(MAX_REPO_FILE / 6) + 10 }, () => "x = 1");
      const big = `${sf.f.good}${newFileDiff("calc/big.py", lines)}`;
      const rec = await select([big, sf.f.goodOther]);
      expect(rec.problems).toEqual([
        `attempt-1: calc/big.py is larger than ${MAX_REPO_FILE} bytes; selection reads files up to that size; its patch has no syntax-tree key`,
      ]);
      expect(rec.candidates[0].ast_key).toBeUndefined();
    });
  };
}

describe.skipIf(!havePytest())("select reads regular files only, capped (local)", suite("local"));
describeWithEngine("bwrap", "select reads regular files only, capped (bwrap)", suite("bwrap"));
