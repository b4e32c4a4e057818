import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { runEval } from "../../src/cli/eval.js";
import { register } from "../../src/cli/swebench.js";
import { selectInstances } from "../../src/dataset/select.js";
import type { FakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { STEPWISE_CALLS, stepwiseReply } from "../support/fixture-instances.js";
import { havePytest } from "../support/pytest-skips.js";
import { tempDir } from "../support/tmp.js";
import { localBatchArgs, readJson, trajectory, useFixtureBatch } from "./helpers.js";

interface CliRun {
  code: number | undefined;
  out: string;
  err: string;
  /** What went to process.stderr (config and usage errors). */
  stderr: string;
}

/** `patchloop swebench ARGS` in this process, through commander, with its output captured. */
async function cli(args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command("patchloop").exitOverride();
  register(program, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    tty: false,
    progressIntervalMs: 600_000,
  });
  const stderr: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((t: string) => stderr.push(String(t)) > 0) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    await program.parseAsync(["node", "patchloop", "swebench", ...args]);
    return {
      code: process.exitCode as number | undefined,
      out: out.join(""),
      err: err.join(""),
      stderr: stderr.join(""),
    };
  } finally {
    process.stderr.write = write;
    process.exitCode = undefined;
  }
}

/** Model calls the fake server got (the preflight's GET /v1/models is not one). */
const calls = (server: FakeLlmServer) => server.requests.filter((r) => r.method === "POST").length;

const predIds = (out: string) => Object.keys(readJson<object>(join(out, "preds.json")));

describe("patchloop swebench against the fake OpenAI-compatible server, local environment", () => {
  // --evaluate runs the environment check: useFixtureBatch puts its cache under the root, not ~/.cache.
  const b = useFixtureBatch(
    "patchloop-batch-cli-",
    { count: 6, repos: 2 },
    { defaultBehaviour: stepwiseReply() },
  );
  const base = () => localBatchArgs(b.f.datasetPath, b.server.url, b.f.reposDir);

  it("runs the whole dataset with 3 workers: gold patches in preds.json, summary table, exit 0", async () => {
    const out = join(tempDir(), "run");
    const before = calls(b.server);
    const r = await cli([...base(), "-w", "3", "-o", out]);
    expect(r.code).toBe(0);
    expect(calls(b.server) - before).toBe(6 * STEPWISE_CALLS);
    const preds = readJson<Record<string, { model_patch: string; model_name_or_path: string }>>(
      join(out, "preds.json"),
    );
    for (const row of b.f.rows)
      expect(preds[row.instance_id]).toEqual({
        instance_id: row.instance_id,
        model_name_or_path: "openai/fake",
        model_patch: row.patch,
      });
    expect(r.out.split("\n").slice(0, 5)).toEqual([
      "exit status  this run  earlier  total",
      "-----------  --------  -------  -----",
      "Submitted           6        0      6",
      "total               6        0      6",
      "",
    ]);
    expect(r.out).toMatch(
      /^model calls 18, tokens 1\.8k in \/ 180 out, cost \$0\.00, wall \d+s, [\d.]+ instances\/hour$/m,
    );
    const ends = r.err.split("\n").filter((l) => /^\[\d\/6\] /.test(l));
    expect(ends).toHaveLength(6);
    expect(ends[5]).toMatch(/^\[6\/6\] acme__lib\d-\d Submitted \(3 calls, \$0\.00, \d+s\)$/);
    const run = readJson<{ info: { argv: string[]; dataset: unknown; config_sources: string[] } }>(
      join(out, "run.json"),
    );
    const rowsJson = JSON.stringify(
      readFileSync(b.f.datasetPath, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    );
    expect(run.info.dataset).toEqual({
      subset: b.f.datasetPath,
      split: "test",
      rows: 6,
      sha256: createHash("sha256").update(rowsJson).digest("hex"),
    });
    expect(run.info.config_sources).toEqual([
      "configs/base.yaml",
      'built-in config "swebench"',
      "-m openai/fake",
      `--base-url ${b.server.url}/v1`,
      "--environment local",
    ]);

    // Resumed with nothing left: no request, exit 0, the table counts them as earlier.
    const again = await cli([...base(), "-w", "3", "-o", out]);
    expect(again.code).toBe(0);
    expect(again.out.split("\n")[2]).toBe("Submitted           0        6      6");
    expect(calls(b.server) - before).toBe(18);
  });

  it("selection flags: --slice, --filter, --instance-ids (spaces or commas), --shuffle", async () => {
    const ids = b.f.rows.map((r) => r.instance_id);
    const run = async (...flags: string[]) => {
      const out = join(tempDir(), "run");
      const r = await cli([...base(), "-w", "2", "-o", out, ...flags]);
      expect(r.code).toBe(0);
      return predIds(out).sort();
    };
    expect(await run("--slice", "1:3")).toEqual([ids[1], ids[2]].sort());
    expect(await run("--filter", "acme__lib1-[46]")).toEqual([ids[3], ids[5]].sort());
    expect(await run("--instance-ids", ids[4], ids[0])).toEqual([ids[0], ids[4]].sort());
    expect(await run("--instance-ids", `${ids[2]},${ids[3]}`)).toEqual([ids[2], ids[3]].sort());
    const shuffled = selectInstances(b.f.rows, { shuffle: true, slice: "0:2" }).map((r) => r.instance_id);
    expect(await run("--shuffle", "--slice", "0:2")).toEqual(shuffled.sort());
  });

  it("usage errors exit 2 with a message saying what to do", async () => {
    const out = join(tempDir(), "run");
    const failing = async (args: string[]) => {
      const r = await cli(args);
      expect(r.code).toBe(2);
      return r.stderr;
    };
    expect(await failing([...base(), "-o", out, "--instance-ids", "acme__nope-1"])).toBe(
      "error: unknown instance id (not in the dataset): acme__nope-1. Check the spelling and the dataset/split.\n",
    );
    const noReposDir = localBatchArgs(b.f.datasetPath, b.server.url);
    expect(await failing([...noReposDir, "-o", out])).toMatch(
      /^error: environment local needs --repos-dir DIR: a folder with one git clone per repository, named owner__repo/,
    );
    expect(await failing([...base(), "-o", out, "-w", "0"])).toBe(
      'error: -w/--workers needs an integer >= 1; got "0"\n',
    );
    expect(await failing([...base(), "-o", out, "--cost-limit", "lots"])).toBe(
      'error: --cost-limit needs a number > 0; got "lots"\n',
    );
    expect(await failing([...base(), "-o", out, "--cost-limit", "0"])).toBe(
      'error: --cost-limit needs a number > 0; got "0"\n',
    );
    expect(await failing([...base(), "-o", out, "--call-limit", "0"])).toBe(
      'error: --call-limit needs an integer >= 1; got "0"\n',
    );
    expect(await failing([...base(), "-o", out, "--filter", "zzz"])).toBe(
      `error: the selection matched none of the 6 instances of ${b.f.datasetPath} (test); check --slice, --filter and --instance-ids\n`,
    );
    expect(
      await failing([
        "--subset",
        b.f.datasetPath,
        "--environment",
        "local",
        "--repos-dir",
        b.f.reposDir,
        "-o",
        out,
      ]),
    ).toMatch(/^error: no model: pass -m/);
    // A template's syntax error shows before the dataset is even read.
    const badTemplate = [
      ...localBatchArgs(join(tempDir(), "absent.jsonl"), b.server.url, b.f.reposDir),
      "-c",
      'agent.instance_template="{% if task %}open"',
      "-o",
      out,
    ];
    expect(await failing(badTemplate)).toMatch(
      /^error: .*template agent\.instance_template has a syntax error: /,
    );
    const noEngine = [
      ...localBatchArgs(b.f.datasetPath, b.server.url),
      "--environment",
      "docker",
      "-c",
      "environment.executable=/nonexistent/docker",
      "-o",
      out,
    ];
    expect(await failing(noEngine)).toBe(
      "error: environment docker: `/nonexistent/docker info` failed: /nonexistent/docker was not found on PATH " +
        "(install it, or set environment.executable). Or choose another environment " +
        "(--environment docker|podman, or local|bwrap with --repos-dir).\n",
    );
    expect(existsSync(out)).toBe(false);
  });

  it("a dataset file with a broken line: exit 2, the error names the file and the line", async () => {
    const bad = join(tempDir(), "broken.jsonl");
    const lines = readFileSync(b.f.datasetPath, "utf8").trimEnd().split("\n");
    lines.splice(2, 0, '{"instance_id": "acme__lib0-9", ');
    writeFileSync(bad, `${lines.join("\n")}\n`);
    const r = await cli([...localBatchArgs(bad, b.server.url, b.f.reposDir), "-o", join(tempDir(), "run")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^error: ${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: line 3 is not valid JSON \\(`),
    );
  });

  it("the instance template gets each row's own fields, checked against every selected row first", async () => {
    const rows = readFileSync(b.f.datasetPath, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const write = (list: Record<string, unknown>[]) => {
      const path = join(tempDir(), "rows.jsonl");
      writeFileSync(path, `${list.map((r) => JSON.stringify(r)).join("\n")}\n`);
      return path;
    };
    const withExtra = write(rows.map((r, i) => ({ ...r, hint_cmd: `pytest -k case${i}` })));
    const template = ["-c", "agent.instance_template=Run {{ instance.hint_cmd }}. {{ task }}"];
    const args = (out: string, dataset = withExtra) => [
      ...localBatchArgs(dataset, b.server.url, b.f.reposDir),
      ...template,
      "--slice",
      "0:1",
      "-o",
      out,
    ];
    const out = join(tempDir(), "run");
    const ok = await cli(args(out));
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    const first = trajectory(out, String(rows[0].instance_id)).messages[1].content as string;
    expect(first.startsWith("Run pytest -k case0. ")).toBe(true);

    // The row without the field is named, before anything starts.
    const partly = write(rows.map((r, i) => (i === 0 ? { ...r, hint_cmd: "x" } : r)));
    const out2 = join(tempDir(), "run");
    const bad = await cli(args(out2, partly).filter((a) => a !== "0:1" && a !== "--slice"));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      new RegExp(
        `^error: the templates do not render for instance ${rows[1].instance_id} \\(nor for 4 more of the 6 selected\\): `,
      ),
    );
    expect(bad.stderr).toContain("instance.hint_cmd");
    expect(existsSync(out2)).toBe(false);
  });

  it("--cost-limit and --call-limit stop launching instances; the rest run on the next invocation", async () => {
    const priced = ["-c", "model.price={input_per_mtok: 10000, output_per_mtok: 0}"];
    const out = join(tempDir(), "run");
    const r = await cli([...base(), ...priced, "-w", "1", "-o", out, "--cost-limit", "5"]);
    expect(r.code).toBe(1);
    expect(predIds(out)).toEqual([b.f.rows[0].instance_id, b.f.rows[1].instance_id]);
    expect(r.out).toContain("\nnot started         4\n");
    expect(r.out).toContain("cost $6.00");
    expect(r.out).toContain(
      "stopped early: the global cost limit (--cost-limit, over every instance of the folder) was reached. " +
        "To continue, run the same command again with a higher --cost-limit",
    );
    expect(readJson<{ stopped_by: string; state: string }>(join(out, "run.json"))).toMatchObject({
      stopped_by: "cost_limit",
      state: "stopped",
    });
    // The cap counts what earlier runs of the folder spent: at 6 of 7 USD, one more instance starts.
    const more = await cli([...base(), ...priced, "-w", "1", "-o", out, "--cost-limit", "7"]);
    expect(more.code).toBe(1);
    expect(predIds(out)).toHaveLength(3);
    // Another selection in the same folder: the $9 the others spent count too, so nothing starts.
    const other = await cli([
      ...base(),
      ...priced,
      "-w",
      "1",
      "-o",
      out,
      "--slice",
      "4:6",
      "--cost-limit",
      "8",
    ]);
    expect(other.code).toBe(1);
    expect(predIds(out)).toHaveLength(3);
    expect(other.out).toContain("\nnot started         2\n");

    const out2 = join(tempDir(), "run");
    const calls = await cli([...base(), "-w", "1", "-o", out2, "--call-limit", "4", "--cost-limit", "100"]);
    // The fake server's model has no price: the cost cap cannot work, and the run says so.
    expect(calls.err).toContain(
      "WARNING: --cost-limit 100 cannot stop this run: its model calls cost $0 (no price is known for openai/fake). " +
        "Set model.price {input_per_mtok, output_per_mtok}, or use --call-limit.\n",
    );
    expect(calls.code).toBe(1);
    expect(predIds(out2)).toHaveLength(2);
    expect(calls.out).toContain(
      "stopped early: the global call limit (--call-limit, over every instance of the folder) was reached.",
    );
    expect(trajectory(out2, b.f.rows[1].instance_id).info.exit_status).toBe("Submitted");

    // The attempt policy's cost cap cannot stop a $0 model either, and is named.
    const out3 = join(tempDir(), "run");
    const policy = await cli([
      ...base(),
      "-o",
      out3,
      "--slice",
      "0:1",
      "--attempts",
      "2",
      "-c",
      "run.select.enabled=false",
      "-c",
      "run.attempt_policy.cost_limit=0.01",
    ]);
    expect(policy.err).toContain(
      "WARNING: run.attempt_policy.cost_limit 0.01 cannot stop this run: its model calls cost $0 (no price is known for openai/fake). " +
        "Set model.price {input_per_mtok, output_per_mtok}, or use --call-limit.\n",
    );
  });

  it.skipIf(!havePytest())("--evaluate grades the predictions in work trees of --repos-dir", async () => {
    const out = join(tempDir(), "run");
    const r = await cli([...base(), "-w", "2", "-o", out, "--slice", "0:2", "--evaluate"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Resolved 2/2 (100.0%)");
    expect(r.out).toMatch(
      new RegExp(`evaluation summary: ${out}/eval/patchloop-run/openai__fake\\.patchloop-run\\.json`),
    );
    expect(r.err).toMatch(/\[eval 2\/2\] acme__lib\d-\d resolved/);
    // `patchloop eval` on the run folder: the same place, the same denominator, said the same way.
    const first = r.out.split("\n").find((l) => l.startsWith("Resolved ")) ?? "";
    expect(first).toBe(
      `Resolved 2/2 (100.0%) of the 2 instances the run took (--slice 0:2 of ${b.f.datasetPath}, test)`,
    );
    const again: string[] = [];
    const code = await runEval(
      {
        predictions: out,
        workers: "1",
        environment: "local",
        reposDir: b.f.reposDir,
        timeout: "60",
        config: [],
      },
      { out: (t) => again.push(t), err: () => undefined },
    );
    expect(code).toBe(0);
    const text = again.join("");
    expect(text.split("\n")[0]).toBe(first);
    expect(text).toContain(`Report: ${out}/eval/patchloop-run/openai__fake.patchloop-run.json\n`);
  });
});
