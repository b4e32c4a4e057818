import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import type { LocalizationLine } from "../../src/localize/types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { runPatchloop } from "../support/cli.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

const SHOP = {
  "shop/__init__.py": "",
  "shop/invoice.py":
    "def invoice_total(lines, rate):\n    total = sum(line.amount for line in lines)\n    return round(total * rate, 0)\n",
  "shop/cart.py": "def add_to_cart(cart, item):\n    cart.items.append(item)\n    return cart\n",
  "tests/test_invoice.py":
    "from shop.invoice import invoice_total\n\n\ndef test_total():\n    assert invoice_total([], 1) == 0\n",
};
const ISSUE =
  "`invoice_total` drops the cents\n\nAfter a currency conversion the invoice total is rounded to whole units.";

/** A folder of owner__repo clones holding acme/shop, and the commit of its one revision. */
function reposDir(): { dir: string; commit: string } {
  const dir = tempDir();
  const commit = makeRepo(join(dir, "acme__shop"), SHOP);
  return { dir, commit };
}

function dataset(rows: object[]): string {
  const file = join(tempDir(), "rows.jsonl");
  writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return file;
}

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("patchloop localize", () => {
  it("writes one line per instance; bad rows get a clear error and the others are still localized", async () => {
    const { dir, commit } = reposDir();
    const rows = dataset([
      { repo: "acme/shop", instance_id: "acme__shop-1", base_commit: commit, problem_statement: ISSUE },
      {
        repo: "acme/shop",
        instance_id: "acme__shop-2",
        base_commit: "0".repeat(40),
        problem_statement: ISSUE,
      },
      { repo: "acme/gone", instance_id: "acme__gone-1", base_commit: commit, problem_statement: ISSUE },
      { repo: "acme/shop", instance_id: "acme__shop-3", base_commit: commit },
      { repo: "acme/shop", instance_id: "acme__shop-4", base_commit: commit, problem_statement: ISSUE },
    ]);
    const out = join(tempDir(), "sub", "loc.jsonl");
    const r = await runPatchloop(["localize", "--subset", rows, "--repos-dir", dir, "--top", "1", "-o", out]);
    expect(r.code).toBe(1);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LocalizationLine);
    expect(lines.map((l) => l.instance_id)).toEqual([
      "acme__shop-1",
      "acme__shop-2",
      "acme__gone-1",
      "acme__shop-3",
      "acme__shop-4",
    ]);
    for (const ok of [lines[0], lines[4]]) {
      expect(Object.keys(ok)).toEqual(["instance_id", "files", "symbols"]);
      expect(ok.files.map((f) => f.path)).toEqual(["shop/invoice.py"]);
      expect(ok.files[0].why[0]).toBe("defines `invoice_total`, named in the title");
      expect(ok.symbols[0]).toEqual({
        path: "shop/invoice.py",
        name: "invoice_total",
        line: 1,
        score: ok.symbols[0].score,
      });
    }
    expect(lines[1]).toMatchObject({ files: [], symbols: [] });
    expect(lines[1].error).toMatch(
      new RegExp(
        `^cannot check out base commit ${"0".repeat(40)} of acme__shop-2 from ${join(dir, "acme__shop")}`,
      ),
    );
    expect(lines[2].error).toBe(
      `no clone of acme/gone at ${join(dir, "acme__gone")}: --repos-dir must hold one git clone per repository, named owner__repo (e.g. git clone https://github.com/acme/gone ${join(dir, "acme__gone")})`,
    );
    expect(lines[3].error).toBe("the row has no problem_statement: there is no issue text to localize from");
    expect(r.stderr).toContain("[1/5] acme__shop-1: shop/invoice.py first of 4 files (");
    expect(r.stderr).toContain("[4/5] acme__shop-3: error: the row has no problem_statement");
    expect(r.stderr).toMatch(/localized 2 of 5 instances \(3 with an error\) in [\d.]+ s -> /);
  });

  it("exits 0 when every instance is localized, and refuses a missing source of repositories", async () => {
    const { dir, commit } = reposDir();
    const rows = dataset([
      { repo: "acme/shop", instance_id: "acme__shop-1", base_commit: commit, problem_statement: ISSUE },
    ]);
    const out = join(tempDir(), "loc.jsonl");
    const ok = await runPatchloop(["localize", "--subset", rows, "--repos-dir", dir, "-o", out]);
    expect(ok.code).toBe(0);
    const none = await runPatchloop(["localize", "--subset", rows, "-o", out]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      "error: where are the repositories? Give --repos-dir DIR (one git clone per repository, named owner__repo) or --environment docker|podman (the SWE-bench instance images)\n",
    );
    const bad = await runPatchloop([
      "localize",
      "--subset",
      rows,
      "--repos-dir",
      dir,
      "--top",
      "0",
      "-o",
      out,
    ]);
    expect(bad.stderr).toBe('error: --top needs an integer from 1 to 1000; got "0"\n');
  });
});

describe("patchloop localize with the model re-rank", () => {
  it("each line records the re-rank: its call, the order the reply named, and why nothing moved when nothing did", async () => {
    const { dir, commit } = reposDir();
    const row = (n: number) => ({
      repo: "acme/shop",
      instance_id: `acme__shop-${n}`,
      base_commit: commit,
      problem_statement: ISSUE,
    });
    const rows = dataset([row(1), row(2)]);
    const plainOut = join(tempDir(), "plain.jsonl");
    const args = ["localize", "--subset", rows, "--repos-dir", dir, "--top", "3"];
    expect((await runPatchloop([...args, "-o", plainOut])).code).toBe(0);
    const plain = (JSON.parse(readFileSync(plainOut, "utf8").split("\n")[0]) as LocalizationLine).files.map(
      (f) => f.path,
    );
    // the issue matches two of the files
    expect(plain.length).toBe(2);
    server = await startFakeLlmServer();
    // instance 1: the reply names the candidates in the order they have; instance 2: the second first
    server.enqueue({
      type: "reply",
      content: plain.join("\n"),
      usage: { prompt_tokens: 50, completion_tokens: 7 },
    });
    server.enqueue({
      type: "reply",
      content: `${plain[1]}\n`,
      usage: { prompt_tokens: 50, completion_tokens: 3 },
    });
    const out = join(tempDir(), "rerank.jsonl");
    const r = await runPatchloop([
      ...args,
      "-c",
      "agent.localize.rerank.enabled=true",
      "-m",
      "openai/local-model",
      "--base-url",
      `${server.url}/v1`,
      "-o",
      out,
    ]);
    expect(r.code).toBe(0);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LocalizationLine);
    expect(lines[0].files.map((f) => f.path)).toEqual(plain);
    expect(lines[0].rerank).toEqual({
      model_calls: 1,
      prompt_tokens: 50,
      completion_tokens: 7,
      cost: 0,
      order: plain,
      error: "the reply named the candidates in the order they already had: ranking unchanged",
    });
    expect(lines[1].files.map((f) => f.path)).toEqual([plain[1], plain[0]]);
    expect(lines[1].rerank).toEqual({
      model_calls: 1,
      prompt_tokens: 50,
      completion_tokens: 3,
      cost: 0,
      order: [plain[1]],
    });
    const progress = r.stderr.split("\n").filter((l) => l.startsWith("["));
    expect(progress[0]).toMatch(
      new RegExp(
        `^\\[1/2\\] acme__shop-1: ${plain[0]} first of 4 files \\([\\d.]+ s\\); re-rank kept the ranking: ` +
          "the reply named the candidates in the order they already had: ranking unchanged$",
      ),
    );
    expect(progress[1]).toMatch(
      new RegExp(
        `^\\[2/2\\] acme__shop-2: ${plain[1]} first of 4 files \\([\\d.]+ s\\); re-ranked by the model \\(it named ${plain[1]}\\)$`,
      ),
    );
  });
});

describe("agent.localize in the agent's run", () => {
  it("patchloop run puts the ranking into the first user message and the trajectory", async () => {
    const dir = tempDir();
    const repo = join(dir, "shop");
    makeRepo(repo, SHOP);
    server = await startFakeLlmServer();
    server.enqueue({
      type: "reply",
      content:
        "THOUGHT: done\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached\n```",
    });
    const out = join(dir, "out");
    const r = await runPatchloop([
      "run",
      "--repo",
      repo,
      "--task",
      ISSUE,
      "-c",
      "swebench_edittool_budget_localize",
      "--environment",
      "local",
      "-c",
      "environment.cwd=''",
      "-m",
      "openai/local-model",
      "--base-url",
      `${server.url}/v1`,
      "-o",
      out,
      "--quiet",
    ]);
    expect(r.stderr).not.toContain("error");
    expect(r.code).toBe(0);
    const body = server.requests[0].body as { messages: Array<{ role: string; content: string }> };
    const first = body.messages[1].content;
    expect(first).toContain(
      "reasons. Start there, and confirm by reading the code; the answer may be elsewhere:\n1. shop/invoice.py (defines `invoice_total`, named in the title; ",
    );
    expect(first).toContain("Definitions to look at first:\n- shop/invoice.py:1 invoice_total\n");
    const traj = JSON.parse(readFileSync(join(out, "shop", "shop.traj.json"), "utf8")) as Trajectory;
    const loc = traj.info.localization!;
    expect(loc.files[0].path).toBe("shop/invoice.py");
    for (const f of loc.files) expect(Object.keys(SHOP)).toContain(f.path);
    expect(loc.files_indexed).toBe(4);
    expect(loc.error).toBeUndefined();
    expect(loc.seconds).toBeGreaterThan(0);
    expect(loc.seconds).toBeGreaterThanOrEqual(loc.read_seconds);
  });

  it("config show --instance renders the ranking in the first user message (from --repos-dir)", async () => {
    const { dir, commit } = reposDir();
    const rows = dataset([
      { repo: "acme/shop", instance_id: "acme__shop-1", base_commit: commit, problem_statement: ISSUE },
    ]);
    const show = (...more: string[]) =>
      runPatchloop([
        "config",
        "show",
        "-c",
        "swebench_edittool_budget_localize",
        "--environment",
        "local",
        "--instance",
        "acme__shop-1",
        "--subset",
        rows,
        ...more,
      ]);
    const r = await show("--repos-dir", dir);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const first = r.stdout.slice(r.stdout.indexOf("# --- first user message (acme__shop-1)"));
    expect(first).toContain("\n1. shop/invoice.py (defines `invoice_total`, named in the title; ");
    // without the clones the message says nothing of a ranking (the error goes into localization.error)
    const bare = await show();
    expect(bare.code).toBe(0);
    const bareFirst = bare.stdout.slice(bare.stdout.indexOf("# --- first user message (acme__shop-1)"));
    expect(bareFirst).toContain("hidden tests will grade the result.\n\nPlan: (1) locate the code");
    expect(bareFirst).not.toContain("A search of the repository");
  });
});
