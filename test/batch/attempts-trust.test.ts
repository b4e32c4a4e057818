import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBatch } from "../../src/batch/run-batch.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import type { FakeBehaviour } from "../../src/testing/fake-llm-server.js";
import { FIX_COMMAND, SUBMIT_COMMAND } from "../support/fixture-instances.js";
import { swebench } from "../support/swebench-command.js";
import { tempDir } from "../support/tmp.js";
import {
  bash,
  localBatchArgs,
  localSwebenchConfig,
  readJson,
  useFixtureBatch,
  useFixtureInstances,
} from "./helpers.js";

/**
 * docs/attempts.md holds, end to end (`patchloop swebench` in this process, the local environment,
 * an OpenAI-compatible fake server on 127.0.0.1): every attempt's outcome is recorded once whatever
 * ended it, the attempt policy replaces the failures it names, the cost limit counts running
 * attempts, and the console's counts say whether they count instances or attempts and add up.
 */

/** A reply of the fake server running one bash command; each costs $0.01 at the price set below. */
const reply = (command: string): FakeBehaviour => ({
  type: "reply",
  content: "step",
  toolCalls: [{ name: "bash", arguments: { command } }],
  usage: { prompt_tokens: 100, completion_tokens: 10 },
});
const FIX = [reply(FIX_COMMAND), reply(SUBMIT_COMMAND)];
const NOTHING = [reply("true"), reply(SUBMIT_COMMAND)];
const DOWN: FakeBehaviour = { type: "error", status: 500, body: { error: { message: "the GPU fell over" } } };

/** Flags every run here shares: one at a time (the replies go out in order), no retry waits, a price. */
const COMMON = [
  "-w",
  "1",
  "-c",
  "model.retry.max_tries=1",
  "-c",
  "model.price={input_per_mtok: 90, output_per_mtok: 100}",
];

interface RunJson {
  instances: Record<string, { exit_status: string; standing_attempt?: number; cost: number }>;
  attempts?: Record<string, { exit_status: string; replaced_by?: number }>;
}

/** The run.log lines of the latest run of the folder (from its `batch:` line on). */
function lastRunLog(out: string): string[] {
  const lines = readFileSync(join(out, "run.log"), "utf8").trimEnd().split("\n");
  let from = 0;
  lines.forEach((l, i) => {
    if (/ batch: \d+ selected/.test(l)) from = i;
  });
  return lines.slice(from).map((l) => l.replace(/^\S+ /, ""));
}

/** An end line without its numbers and reason: `[k/n attempts] id attempt j Status[; attempt m replaces it ...]`. */
const shape = (line: string) =>
  line.replace(/ \(\d+ calls?, \$[\d.]+, \w+\)(: .*?)?(?=; attempt \d+ replaces it|$)/, "");

/** The progress lines of attempts that ended, as printed. */
const endLines = (err: string) => err.split("\n").filter((l) => /^\[\d+\/\d+ attempts\] /.test(l));

describe("attempts you can trust (local environment, fake model server)", () => {
  const fb = useFixtureBatch("patchloop-attempts-trust-", { count: 4, repos: 1 }, undefined, false);
  /** A dataset of `rows`, written beside the fixtures. */
  const dataset = (name: string, rows: SwebenchInstance[]) => {
    const path = join(fb.root, `${name}.jsonl`);
    writeFileSync(path, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    return path;
  };

  it("an attempt whose environment cannot open is recorded once, like any other, and runs again", async () => {
    const row = fb.f.rows[0];
    const id = row.instance_id;
    const broken = dataset("broken", [{ ...row, base_commit: "0123456789abcdef0123456789abcdef01234567" }]);
    const out = join(tempDir(), "run");
    const args = ["-o", out, "--attempts", "2", "-c", "run.select.enabled=false", ...COMMON];
    const r = await swebench([...localBatchArgs(broken, fb.server.url, fb.f.reposDir), ...args]);
    expect(r.code, r.err).toBe(1);
    const run = readJson<RunJson>(join(out, "run.json"));
    expect(Object.keys(run.attempts ?? {}).sort()).toEqual([`${id}/attempt-1`, `${id}/attempt-2`]);
    expect(Object.values(run.attempts ?? {}).map((a) => a.exit_status)).toEqual([
      "EnvironmentError",
      "EnvironmentError",
    ]);
    expect(run.instances[id].exit_status).toBe("EnvironmentError");
    expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe(`EnvironmentError:\n  - ${id}\n`);
    expect(readFileSync(join(out, "run.log"), "utf8")).not.toContain("was dropped");
    expect(endLines(r.err).map((l) => l.replace(/ \(0 calls.*$/, ""))).toEqual([
      `[1/2 attempts] ${id} attempt 1 EnvironmentError`,
      `[2/2 attempts] ${id} attempt 2 EnvironmentError`,
    ]);
    // a base commit missing from the clone is the environment's failure, counted in its own row
    expect(r.out).toContain("infrastructure failure         1        0      1\n");
    expect(r.out).toContain("infrastructure failure         2        0      2\n");
    expect(r.out).toContain("1 instance(s) must run again (2 attempt(s) ended Interrupted, EnvironmentError");

    // The resume rules see both: the same command (the base commit now in the clone) runs both again.
    fb.server.enqueue(...FIX, ...FIX);
    const good = dataset("good", [row]);
    const again = await swebench([...localBatchArgs(good, fb.server.url, fb.f.reposDir), ...args]);
    expect(again.code, again.err).toBe(0);
    expect(lastRunLog(out).filter((l) => l.startsWith("start "))).toEqual([
      `start ${id}/attempt-1`,
      `start ${id}/attempt-2`,
    ]);
    const after = readJson<RunJson>(join(out, "run.json"));
    expect(after.instances[id]).toMatchObject({ exit_status: "Submitted", standing_attempt: 1 });
    expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe(`Submitted:\n  - ${id}\n`);
  });

  it("replace_failed replaces a ModelError attempt at once, and counts the replacement in the progress", async () => {
    const id = fb.f.rows[1].instance_id;
    const one = dataset("one", [fb.f.rows[1]]);
    const out = join(tempDir(), "run");
    // Attempt 1: the server fails (ModelError after its retries); 3 replaces it; then 2.
    fb.server.enqueue(DOWN, ...FIX, ...FIX);
    const r = await swebench([
      ...localBatchArgs(one, fb.server.url, fb.f.reposDir),
      ...["-o", out, "--attempts", "2", "-c", "run.attempt_policy.replace_failed=1"],
      ...["-c", "run.select.enabled=false", ...COMMON],
    ]);
    expect(r.code, r.err).toBe(0);
    expect(endLines(r.err).map(shape)).toEqual([
      `[1/3 attempts] ${id} attempt 1 ModelError; attempt 3 replaces it (run.attempt_policy.replace_failed)`,
      `[2/3 attempts] ${id} attempt 3 Submitted`,
      `[3/3 attempts] ${id} attempt 2 Submitted`,
    ]);
    const run = readJson<RunJson>(join(out, "run.json"));
    expect(run.attempts?.[`${id}/attempt-1`]).toMatchObject({ exit_status: "ModelError", replaced_by: 3 });
    expect(run.instances[id]).toMatchObject({ exit_status: "Submitted", standing_attempt: 2 });
    expect(r.out).not.toContain("run the same command again");
    // Nothing is left to run.
    const again = await swebench([
      ...localBatchArgs(one, fb.server.url, fb.f.reposDir),
      ...["-o", out, "--attempts", "2", "-c", "run.attempt_policy.replace_failed=1"],
      ...["-c", "run.select.enabled=false", ...COMMON],
    ]);
    expect(again.code, again.err).toBe(0);
    expect(lastRunLog(out).filter((l) => l.startsWith("start "))).toEqual([]);
  });

  it("after 'run the same command again' a re-run starts the replacement, not the same failure", async () => {
    const id = fb.f.rows[1].instance_id;
    const one = dataset("one", [fb.f.rows[1]]);
    const out = join(tempDir(), "run");
    const args = [
      ...localBatchArgs(one, fb.server.url, fb.f.reposDir),
      ...["-o", out, "--attempts", "2", "-c", "run.attempt_policy.replace_failed=1"],
      ...["-c", "run.select.enabled=false", ...COMMON],
    ];
    // The server is down: attempt 1 fails (3 replaces it), 3 fails (no replacement left), 2 fails.
    fb.server.enqueue(DOWN, DOWN, DOWN);
    const r = await swebench(args);
    expect(r.code).toBe(1);
    expect(r.out).toContain("stopped early: the model server kept failing");
    const run = readJson<RunJson>(join(out, "run.json"));
    expect(run.attempts?.[`${id}/attempt-1`]).toMatchObject({ exit_status: "ModelError", replaced_by: 3 });
    fb.server.enqueue(...FIX, ...FIX);
    const again = await swebench(args);
    expect(again.code, again.err).toBe(0);
    expect(
      lastRunLog(out)
        .filter((l) => l.startsWith("start "))
        .sort(),
    ).toEqual([`start ${id}/attempt-2`, `start ${id}/attempt-3`]);
  });

  it("a replaced attempt that submitted no patch keeps the progress within its total", async () => {
    const id = fb.f.rows[2].instance_id;
    const out = join(tempDir(), "run");
    fb.server.enqueue(...NOTHING, ...FIX, ...FIX);
    const r = await swebench([
      ...localBatchArgs(dataset("third", [fb.f.rows[2]]), fb.server.url, fb.f.reposDir),
      ...["-o", out, "--attempts", "2", "-c", "run.attempt_policy.replace_failed=1"],
      ...["-c", "run.select.enabled=false", ...COMMON],
    ]);
    expect(r.code, r.err).toBe(0);
    expect(endLines(r.err).map(shape)).toEqual([
      `[1/3 attempts] ${id} attempt 1 Submitted; attempt 3 replaces it (run.attempt_policy.replace_failed)`,
      `[2/3 attempts] ${id} attempt 3 Submitted`,
      `[3/3 attempts] ${id} attempt 2 Submitted`,
    ]);
  });

  it("the agree policy's stop is said on the console, and without selection the end says how to select", async () => {
    const id = fb.f.rows[0].instance_id;
    const out = join(tempDir(), "run");
    fb.server.enqueue(...FIX, ...FIX);
    const r = await swebench([
      ...localBatchArgs(dataset("first", [fb.f.rows[0]]), fb.server.url, fb.f.reposDir),
      ...["-o", out, "--attempts", "3", "-c", "run.attempt_policy.agree=2"],
      ...["-c", "run.select.enabled=false", ...COMMON],
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(
      `${id}: no further attempt starts: 2 attempts agree on one patch (run.attempt_policy.agree 2)\n`,
    );
    expect(endLines(r.err).map((l) => l.replace(/ \(.*$/, ""))).toEqual([
      `[1/3 attempts] ${id} attempt 1 Submitted`,
      `[2/2 attempts] ${id} attempt 2 Submitted`,
    ]);
    expect(r.out).toContain("stopped by policy         1");
    // run.json says which attempt the policy stopped, and why
    expect(JSON.parse(readFileSync(join(out, "run.json"), "utf8")).stopped_attempts).toEqual({
      [`${id}/attempt-3`]: "2 attempts agree on one patch (run.attempt_policy.agree 2)",
    });
    // the stop follows the end line of the attempt that made the two agree, not before it
    expect(r.err).toMatch(
      new RegExp(
        `\\[2/2 attempts\\] ${id} attempt 2 Submitted [^\\n]*\\n${id}: no further attempt starts: 2 attempts agree`,
      ),
    );
    expect(r.out).toContain(
      `preds.json holds each instance's standing attempt (the first that did not fail; run.select.enabled is false). ` +
        `To pick one patch per instance from its attempts: patchloop select ${out}\n`,
    );
  });

  it("4 instances x 3 attempts: an environment failure, a model failure and a resume; the console adds up to run.json", async () => {
    const [a, b, c, d] = fb.f.rows;
    const brokenB = { ...b, base_commit: "0123456789abcdef0123456789abcdef01234567" };
    const out = join(tempDir(), "run");
    const args = (data: string) => [
      ...localBatchArgs(data, fb.server.url, fb.f.reposDir),
      ...["-o", out, "--attempts", "3", "-c", "run.select.enabled=false", ...COMMON],
    ];
    // -w 1: a's 3 attempts, b's (no environment: no request), c's (attempt 1: a 400, final), d's.
    const refused: FakeBehaviour = {
      type: "error",
      status: 400,
      body: { error: { message: "bad request" } },
    };
    fb.server.enqueue(...FIX, ...FIX, ...FIX, refused, ...FIX, ...FIX, ...FIX, ...FIX, ...FIX);
    const first = await swebench(args(dataset("four-broken", [a, brokenB, c, d])));
    expect(first.code, first.err).toBe(1);
    fb.server.enqueue(...FIX, ...FIX, ...FIX);
    const second = await swebench(args(dataset("four", [a, b, c, d])));
    expect(second.code, second.err).toBe(0);
    console.log(
      `--- first run: console (stderr, then stdout) ---\n${first.err}${first.out}` +
        `--- resumed run ---\n${second.err}${second.out}`,
    );

    // Every end line counts attempts, names its attempt, and the numbers run 1..total.
    const lines1 = endLines(first.err);
    expect(lines1.map((l) => /^\[(\d+)\/(\d+) attempts\]/.exec(l)?.slice(1).join("/"))).toEqual(
      Array.from({ length: 12 }, (_, i) => `${i + 1}/12`),
    );
    expect(lines1.filter((l) => l.includes(" EnvironmentError ")).map((l) => l.split(" ")[4])).toEqual([
      "1",
      "2",
      "3",
    ]);
    expect(lines1.filter((l) => l.includes(" ModelError "))).toHaveLength(1);
    // The resumed run: b's 3 attempts, the other 9 kept: [10/12] .. [12/12].
    expect(endLines(second.err).map((l) => l.replace(/ \(.*$/, ""))).toEqual([
      `[10/12 attempts] ${b.instance_id} attempt 1 Submitted`,
      `[11/12 attempts] ${b.instance_id} attempt 2 Submitted`,
      `[12/12 attempts] ${b.instance_id} attempt 3 Submitted`,
    ]);

    // The summary's tables against run.json: instances by their standing status, attempts by theirs.
    const run = readJson<RunJson>(join(out, "run.json"));
    const count = (xs: string[]) => {
      const m: Record<string, number> = {};
      for (const x of xs) m[x] = (m[x] ?? 0) + 1;
      return m;
    };
    expect(count(Object.values(run.instances).map((i) => i.exit_status))).toEqual({ Submitted: 4 });
    expect(count(Object.values(run.attempts ?? {}).map((i) => i.exit_status))).toEqual({
      Submitted: 11,
      ModelError: 1,
    });
    const tables = second.out.split("\n");
    const rowOf = (from: number, name: string) =>
      tables
        .slice(from)
        .find((l) => l.startsWith(`${name} `))
        ?.slice(name.length)
        .trim()
        .split(/\s+/)
        .map(Number);
    const attemptsAt = tables.findIndex((l) => l.startsWith("attempts ("));
    expect(tables[0]).toBe("instances (each once: the status of the attempt that stands for it)");
    // instances: b ran now, a, c and d were kept: this run 1, earlier 3, total 4 = run.json's 4.
    expect(rowOf(0, "Submitted")).toEqual([1, 3, 4]);
    expect(rowOf(0, "total")).toEqual([1, 3, Object.keys(run.instances).length]);
    // attempts: 3 now, 9 earlier (8 Submitted, c's ModelError); totals = run.json's attempts.
    expect(rowOf(attemptsAt, "Submitted")).toEqual([3, 8, 11]);
    expect(rowOf(attemptsAt, "ModelError")).toEqual([0, 1, 1]);
    expect(rowOf(attemptsAt, "total")).toEqual([3, 9, Object.keys(run.attempts ?? {}).length]);
    expect(second.out).toMatch(/, \d+\.\d instances\/hour \(\d+\.\d attempts\/hour\)\n/);
    // The first run's tables: b's instance is EnvironmentError before the model's first reply (an
    // infrastructure failure, in its own row), its 3 attempts too.
    const t1 = first.out.split("\n");
    const at1 = t1.findIndex((l) => l.startsWith("attempts ("));
    const row1 = (from: number, to: number, name: string) =>
      t1
        .slice(from, to)
        .find((l) => l.startsWith(`${name} `))
        ?.slice(name.length)
        .trim()
        .split(/\s+/)
        .map(Number);
    expect(row1(0, at1, "Submitted")).toEqual([3, 0, 3]);
    expect(row1(0, at1, "infrastructure failure")).toEqual([1, 0, 1]);
    expect(row1(at1, t1.length, "Submitted")).toEqual([8, 0, 8]);
    expect(row1(at1, t1.length, "infrastructure failure")).toEqual([3, 0, 3]);
    expect(row1(at1, t1.length, "ModelError")).toEqual([1, 0, 1]);
    expect(row1(at1, t1.length, "total")).toEqual([12, 0, 12]);
  });
});

describe("run.attempt_policy.cost_limit counts attempts still running", () => {
  const fx = useFixtureInstances("patchloop-attempts-cost-", { count: 1, repos: 1 });

  it("an attempt does not start once the ended and the running attempts together reach the limit", async () => {
    const out = join(tempDir(), "run");
    const id = fx.f.rows[0].instance_id;
    const config = localSwebenchConfig([
      "agent.step_limit=3",
      "run.attempts=3",
      "run.attempt_policy.cost_limit=0.05",
    ]);
    // Attempt 1 ($0.04) is slow to start its work, so attempt 2 has spent $0.02 (and sleeps) when 1 ends.
    const scripts: Record<number, Parameters<typeof bash>[0][]> = {
      1: [`sleep 1; ${FIX_COMMAND}`, SUBMIT_COMMAND],
      2: ["sleep 3", FIX_COMMAND, SUBMIT_COMMAND],
      3: [FIX_COMMAND, SUBMIT_COMMAND],
    };
    const result = await runBatch({
      config,
      instances: fx.f.rows,
      outputDir: out,
      workers: 2,
      reposDir: fx.f.reposDir,
      modelFor: (_row, k) => new ScriptedModel(scripts[k ?? 1].map((cmd) => bash(cmd, 0.02))),
    });
    expect(result.outcomes.map((o) => o.attempt_number).sort()).toEqual([1, 2]);
    expect(result.attempts?.stopped).toEqual({
      [`${id}/attempt-3`]: "its attempts cost $0.0600, run.attempt_policy.cost_limit is $0.05",
    });
  });
});
