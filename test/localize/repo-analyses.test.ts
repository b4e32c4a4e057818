import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { localizeForAgent } from "../../src/localize/agent-hook.js";
import { baselineRanking } from "../../src/localize/baseline.js";
import { localize } from "../../src/localize/localize.js";
import { readWorkTree } from "../../src/localize/read-worktree.js";
import { RepoAnalyses, repoAnalyses } from "../../src/localize/repo-analyses.js";
import { DEFAULT_LIMITS, DocStore } from "../../src/localize/repo-files.js";
import { git, makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { py } from "./support.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A full collection after the current job (a WeakRef's target is kept until the job ends). */
async function collect(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  gc();
}

function repo(files: Record<string, string>): string {
  const dir = join(tempDir(), "repo");
  makeRepo(dir, files);
  return dir;
}

const SMALL = {
  "pkg/__init__.py": "",
  "pkg/invoice.py": py("def invoice_total(lines):\n    return sum(lines)"),
  "pkg/cart.py": py("def add_to_cart(cart, item):\n    cart.append(item)"),
};

/** A new store, as the localizers make one for a repository not held yet. */
const fresh = () => new DocStore();

describe("RepoAnalyses: each repository's analyses, kept while instances of it are to come", () => {
  it("shares a retained repository's analyses between its instances, and lets them go after the last", async () => {
    const a = repo(SMALL);
    const analyses = new RepoAnalyses();
    analyses.retain("acme/a", 2);
    analyses.retain("acme/b");
    expect(analyses.held()).toEqual([
      { repo: "acme/a", pending: 2, files: 0 },
      { repo: "acme/b", pending: 1, files: 0 },
    ]);
    const first = await readWorkTree(a, analyses.store("acme/a", fresh), DEFAULT_LIMITS);
    const refs = first.files.map((f) => new WeakRef(f.doc));
    const second = await readWorkTree(a, analyses.store("acme/a", fresh), DEFAULT_LIMITS);
    // the second instance reads no file again: the same analysed documents
    expect(second.files.map((f) => f.doc)).toEqual(first.files.map((f) => f.doc));
    expect(second.files.every((f, i) => f.doc === first.files[i].doc)).toBe(true);
    analyses.release("acme/a");
    expect(analyses.held()).toEqual([
      { repo: "acme/a", pending: 1, files: 3 },
      { repo: "acme/b", pending: 1, files: 0 },
    ]);
    analyses.release("acme/a");
    expect(analyses.held()).toEqual([{ repo: "acme/b", pending: 1, files: 0 }]);
    first.files.length = 0;
    second.files.length = 0;
    await collect();
    expect(refs.map((r) => r.deref())).toEqual([undefined, undefined, undefined]);
  });

  it("keeps one unretained repository at a time; retaining it later keeps what was analysed", async () => {
    const analyses = new RepoAnalyses();
    const x = analyses.store("acme/x", fresh);
    expect(analyses.store("acme/x", fresh)).toBe(x);
    await readWorkTree(repo(SMALL), x, DEFAULT_LIMITS);
    expect(analyses.held()).toEqual([{ repo: "acme/x", pending: 0, files: 3 }]);
    const y: DocStore = analyses.store("acme/y", fresh);
    expect(y).not.toBe(x);
    expect(analyses.held()).toEqual([{ repo: "acme/y", pending: 0, files: 0 }]);
    await readWorkTree(repo(SMALL), y, DEFAULT_LIMITS);
    analyses.retain("acme/y");
    expect(analyses.store("acme/y", fresh)).toBe(y);
    expect(analyses.held()).toEqual([{ repo: "acme/y", pending: 1, files: 3 }]);
    analyses.release("acme/y");
    expect(analyses.held()).toEqual([]);
    // a release nobody retained changes nothing; a count below 1 is a caller's mistake
    analyses.release("acme/never");
    expect(analyses.held()).toEqual([]);
    expect(() => analyses.retain("acme/z", 0)).toThrow('retain("acme/z", 0): n must be 1 or more');
  });
});

describe("one repository's store over many commits", () => {
  it("keeps the documents of the last two snapshots: an unchanged file is shared, an old version dropped", async () => {
    const dir = repo({
      "pkg/a.py": py("def first():\n    return 1"),
      "pkg/b.py": py("def same():\n    return 0"),
    });
    const store = new DocStore();
    const read = async () => {
      const s = await readWorkTree(dir, store, DEFAULT_LIMITS);
      return Object.fromEntries(s.files.map((f) => [f.path, f.doc]));
    };
    const commit = (body: string) => {
      writeFileSync(join(dir, "pkg", "a.py"), py(body));
      git(dir, "commit", "-qam", body);
    };
    const one = await read();
    commit("def second():\n    return 2");
    const two = await read();
    commit("def third():\n    return 3");
    const three = await read();
    expect(two["pkg/b.py"]).toBe(one["pkg/b.py"]);
    expect(three["pkg/b.py"]).toBe(one["pkg/b.py"]);
    expect(store.get(one["pkg/a.py"].blob)).toBeUndefined();
    expect(store.get(two["pkg/a.py"].blob)).toBe(two["pkg/a.py"]);
    expect(store.get(three["pkg/a.py"].blob)).toBe(three["pkg/a.py"]);
    expect(store.size).toBe(3);
    // the first version again (a revert) is analysed anew, and the second is dropped in turn
    commit("def first():\n    return 1");
    const four = await read();
    expect(four["pkg/a.py"].blob).toBe(one["pkg/a.py"].blob);
    expect(four["pkg/a.py"]).not.toBe(one["pkg/a.py"]);
    expect(store.get(two["pkg/a.py"].blob)).toBeUndefined();
    expect(store.size).toBe(3);
  });
});

describe("agent.localize in a batch (localizeForAgent with the instance's repository)", () => {
  it("reads into the retained repository's analyses; without a repository nothing is kept", async () => {
    const dir = repo(SMALL);
    const { config } = loadConfig({
      configArgs: ["default", "agent.localize.enabled=true"],
      defaultConfig: "default",
    });
    const env = createLocalEnvironment({ cwd: dir });
    const analyses = repoAnalyses();
    try {
      const alone = await localizeForAgent(config, env, "`invoice_total` is wrong");
      expect(alone?.record.files[0].path).toBe("pkg/invoice.py");
      expect(analyses.held()).toEqual([]);
      // what the batch does: retain each pending instance's repository, release it when the instance is over
      analyses.retain("acme/small", 2);
      for (const issue of ["`invoice_total` is wrong", "`add_to_cart` is wrong"]) {
        const loc = await localizeForAgent(config, env, issue, { repo: "acme/small" });
        expect(loc?.record.files_indexed).toBe(3);
        expect(analyses.held()).toEqual([{ repo: "acme/small", pending: 2, files: 3 }]);
      }
      analyses.release("acme/small");
      analyses.release("acme/small");
      expect(analyses.held()).toEqual([]);
    } finally {
      await env.close();
    }
  });
});

describe("a dropped analysis leaves no file text behind", () => {
  it("the tokenizers' tables hold copies of identifiers, not slices of the files they were read in", async () => {
    // 60 files of about 100 kB; each has an identifier no other file has (13+ characters, which
    // V8 would keep as a slice of the file's text), the rest is shared text.
    const body = Array.from(
      { length: 2000 },
      (_, k) => `    total_amount_${k % 50} = compute_value(item, ${k})`,
    ).join("\n");
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`pkg/mod_${i}.py`] = py(`def unique_function_of_module_${i}(item):\n${body}\n    return item`);
    const dir = repo(files);
    const textBytes = Object.values(files).reduce((n, t) => n + t.length, 0);
    expect(textBytes).toBeGreaterThan(5_000_000);
    const localizeIn = async (where: string, name: string) => {
      const snapshot = await readWorkTree(where, new DocStore(), DEFAULT_LIMITS);
      const r = await localize(`\`${name}\` is wrong`, snapshot, { topK: 3, topSymbols: 1 });
      return [r.files[0].path, baselineRanking(`${name} is wrong`, snapshot, 3)[0]];
    };
    // once on a small repository first: the parser and what the first ranking loads stay either way
    expect(await localizeIn(repo(SMALL), "invoice_total")).toEqual(["pkg/invoice.py", "pkg/invoice.py"]);
    await collect();
    const before = process.memoryUsage().heapUsed;
    expect(await localizeIn(dir, "unique_function_of_module_7")).toEqual(["pkg/mod_7.py", "pkg/mod_7.py"]);
    await collect();
    const kept = process.memoryUsage().heapUsed - before;
    // before: every file's text stayed reachable from the tables (6.3 MB kept of 5.7 MB of text here)
    expect(kept).toBeLessThan(textBytes / 4);
  });
});
