import { createHash } from "node:crypto";
import { z } from "zod";
import type { SelectConfig } from "../config/schema.js";
import type { TestRunner } from "../grading/test-spec.js";
import type { Model } from "../models/types.js";
import type { SelectCache } from "./cache.js";
import {
  changedExamples,
  type ExamplesInput,
  issueExamples,
  statedExamples,
  statementText,
} from "./examples.js";
import { changedFunctionNames, expectedToChange } from "./issue-functions.js";
import { withoutFiles } from "./patch-parse.js";
import type { PublicRow } from "./public-row.js";
import { pythonAstKey } from "./python-ast.js";
import type { CandidateTests } from "./record.js";
import { chooseTests, importPattern, moduleOf } from "./relevant-tests.js";
import { askForTest, REPRO_TEST_PATH } from "./reproduce.js";
import { isTestModule, isTestPath } from "./test-paths.js";
import type { TestRun, Workbench } from "./workbench.js";

/** A distinct usable patch of an instance (candidates with the same text share one). */
export interface Unit {
  sha: string;
  patch: string;
  textKey: string;
  files: string[];
}

/** What running the candidates in the instance's environment found. */
export interface Execution {
  /** Per patch sha: whether it applies, its syntax-tree key, and the files not read for it (why, in words). */
  applies: Map<string, { applies: boolean; reasons: string[]; astKey?: string; unread?: string[] }>;
  /** `files`: the modules run with the candidates; `left`: the chosen modules left out, and why. */
  regression?: { files: string[]; passingAtBase: number; left?: string[]; skipped?: string };
  /** Per text key. */
  regressionOf: Map<string, CandidateTests>;
  reproduction?: { kept: boolean; reason: string; tests?: string[] };
  /** The issue's examples: how many, and whether they ran at the base commit. */
  examples?: { count: number; ran: boolean; reason: string };
  /** Per text key: the examples whose output the candidate changes (null: none comparable). */
  examplesOf: Map<string, ExamplesResult>;
  reproductionOf: Map<string, { passed: number; of: number; error?: string; cached: boolean }>;
  /**
   * Why the regression tests planned for the candidates could not run at all (no test command,
   * or no chosen module ran at the base commit for a reason other than the budget or failing
   * tests); absent when they ran or none were planned.
   */
  untested?: string;
}

export interface ExecutionContext {
  row: PublicRow;
  config: SelectConfig;
  /**
   * Opens the workbench the first time it is needed (results in the cache need none): the one
   * where patches are applied and files read, and no candidate's code runs.
   */
  bench: () => Promise<Workbench>;
  /**
   * Opens a workbench of its own (a fresh checkout or container, temp and home) for one test run;
   * the caller closes it, which ends every process the run left.
   */
  freshBench: () => Promise<Workbench>;
  cache: SelectCache;
  /** The environment kind (part of every cache key). */
  kind: string;
  runner?: TestRunner;
  /** Why there is no runner. */
  runnerProblem?: string;
  reproducer?: Model;
  signal?: AbortSignal;
}

/** Changed modules whose importers are searched for, at most. */
const MAX_MODULES = 20;

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

const ApplyEntry = z.object({
  applies: z.boolean(),
  reasons: z.array(z.string()),
  astKey: z.string().optional(),
  unread: z.array(z.string()).optional(),
});
const TestRunEntry: z.ZodType<TestRun> = z.union([
  z.object({
    ok: z.literal(true),
    statuses: z.record(z.string(), z.string()),
    seconds: z.number(),
    cpuSeconds: z.number(),
  }),
  z.object({
    ok: z.literal(false),
    timedOut: z.boolean(),
    error: z.string(),
    seconds: z.number(),
    cpuSeconds: z.number(),
  }),
]);
const FilesEntry = z.object({ files: z.array(z.string()) });
const ReproEntry = z.union([
  z.object({ ok: z.literal(true), test: z.string() }),
  z.object({ ok: z.literal(false), problem: z.string() }),
]);

/** What the issue's examples printed with one candidate, compared with the base commit. */
export interface ExamplesResult {
  /** Indexes of the examples whose output changed; null when none could be compared. */
  changed: number[] | null;
  /** Of those, the ones where it prints a line the issue states (examples.ts, statedExamples). */
  stated: number[] | null;
  /** sha256 of what the examples printed with it (all of them, in order): equal output, equal behaviour. */
  outputs_sha256?: string;
  error?: string;
  cached: boolean;
}

const ExamplesEntry = z.union([
  z.object({ ok: z.literal(true), outputs: z.array(z.string().nullable()), cpuSeconds: z.number() }),
  z.object({ ok: z.literal(false), error: z.string(), cpuSeconds: z.number() }),
]);
type ExamplesRun = z.infer<typeof ExamplesEntry>;

const passing = (s: string) => s === "PASSED" || s === "XFAIL";

/** Applies each unit in a fresh work tree and reads the syntax-tree key of its Python files. */
async function checkApplies(units: Unit[], ctx: ExecutionContext, out: Execution): Promise<void> {
  for (const u of units) {
    const key = [ctx.row.base_commit, ctx.kind, u.sha];
    let entry = await ctx.cache.get("apply", key, ApplyEntry);
    if (!entry) {
      const bench = await ctx.bench();
      await bench.reset();
      const applied = await bench.apply(u.patch);
      entry = { applies: applied.applied, reasons: applied.reasons };
      if (applied.applied) {
        const parts: string[] = [];
        for (const f of u.files) {
          // a path leading out of the repository is not read (git apply refuses it anyway)
          if (f.startsWith("/") || f.split("/").includes("..")) break;
          const read = await bench.readRepoFile(f);
          if ("refused" in read) {
            entry.unread = [read.refused];
            break;
          }
          const text = "text" in read ? read.text : null;
          const k = text === null ? "deleted" : f.endsWith(".py") ? await pythonAstKey(text) : sha(text);
          if (k === null) {
            parts.length = 0;
            break;
          }
          parts.push(`${f}:${k}`);
        }
        if (parts.length === u.files.length) entry.astKey = sha(parts.join("\n"));
      }
      await ctx.cache.put("apply", key, entry);
    }
    out.applies.set(u.sha, entry);
  }
}

/** The test modules relevant to the units' changed modules (cached). */
async function relevantTests(units: Unit[], ctx: ExecutionContext): Promise<string[]> {
  const modules = [...new Set(units.flatMap((u) => u.files))]
    .map(moduleOf)
    .filter((m) => m !== null)
    .slice(0, MAX_MODULES);
  const max = ctx.config.regression.max_test_files;
  const key = [ctx.row.base_commit, ctx.kind, modules.map((m) => m.path), max];
  const hit = await ctx.cache.get("tests", key, FilesEntry);
  if (hit) return hit.files;
  const bench = await ctx.bench();
  const specs = ["*test*.py", "*tests.py"];
  const tests = (await bench.trackedFiles()).filter(isTestModule);
  const importers = new Map<string, string[]>();
  for (const m of modules) importers.set(m.path, await bench.filesMatching(importPattern(m), specs));
  const files = chooseTests(modules, tests, importers, max);
  await ctx.cache.put("tests", key, { files });
  return files;
}

/**
 * Runs `use` in a workbench of its own at the base commit, with the unit's code changes (its test
 * files left out) when given, then closes it: no file, process, temp or home folder of one run
 * reaches another (a candidate's tests may write anywhere in the checkout, `.git` included).
 */
async function withBench<T>(
  ctx: ExecutionContext,
  unit: Unit | undefined,
  use: (bench: Workbench) => Promise<T>,
  notApplied: (error: string) => T,
): Promise<T> {
  const bench = await ctx.freshBench();
  try {
    if (unit) {
      const applied = await bench.apply(withoutFiles(unit.patch, isTestPath));
      if (!applied.applied)
        return notApplied(`its code changes do not apply alone (${applied.reasons.join("; ")})`);
    }
    return await use(bench);
  } finally {
    await bench.close().catch(() => undefined);
  }
}

/** Runs `files` with the unit's code changes (its test files left out), or at the base commit, under `cpu` CPU seconds. */
function runWith(
  ctx: ExecutionContext,
  unit: Unit | undefined,
  files: string[],
  cpu: number,
  extra?: { path: string; text: string },
): Promise<TestRun> {
  return withBench(
    ctx,
    unit,
    async (bench) => {
      if (extra) await bench.writeRepoFile(extra.path, extra.text);
      return bench.runTests(files, { cpu, wall: ctx.config.wall_timeout });
    },
    (error): TestRun => ({ ok: false, timedOut: false, error, seconds: 0, cpuSeconds: 0 }),
  );
}

/** CPU seconds of test runs one instance may use (run.select.budget), and how many it used. */
interface Budget {
  limit: number;
  spent: number;
}

/** A test run's result, or why it did not run (the budget). */
type Budgeted = { run: TestRun; cached: boolean } | { budget: string };

/**
 * A cached test run, or a fresh one with at most `wanted` CPU seconds and no more than the budget
 * has left (then cached and counted). A run the budget cut short is not a result: it is neither
 * cached nor held against the candidate.
 */
async function budgetedRun(
  ctx: ExecutionContext,
  kind: string,
  key: unknown[],
  budget: Budget,
  wanted: number,
  run: (timeout: number) => Promise<TestRun>,
): Promise<Budgeted> {
  const hit = await ctx.cache.get(kind, key, TestRunEntry);
  if (hit) return { run: hit, cached: true };
  const left = Math.floor(budget.limit - budget.spent);
  if (left < 1) return { budget: `not tested: the instance's test budget (${budget.limit} CPU s) was spent` };
  const timeout = Math.min(wanted, left);
  const fresh = await run(timeout);
  budget.spent += fresh.cpuSeconds;
  if (!fresh.ok && fresh.timedOut && timeout < wanted) {
    return {
      budget: `not tested: stopped after ${timeout} CPU s, when the instance's test budget (${budget.limit} CPU s) ran out`,
    };
  }
  await ctx.cache.put(kind, key, fresh);
  return { run: fresh, cached: false };
}

/** What the base commit's runs of the chosen test modules left to run with each candidate. */
interface BaseTests {
  /** The modules kept: they ran within their share of the budget and some of their tests pass. */
  files: string[];
  /** Tests that pass at the base commit in those modules. */
  pass: string[];
  /** CPU seconds the kept modules took at the base commit (what one candidate's run is expected to take). */
  cpuSeconds: number;
  /** Why each other module was left out. */
  left: string[];
  /** Of those, the modules whose base run gave no results (not stopped, not left for the budget or failing tests). */
  failed: number;
}

/** A cached base run of one module: reused unless it was stopped under a smaller CPU limit than `cpu`. */
async function baseRunOf(
  ctx: ExecutionContext,
  file: string,
  cpu: number,
  budget: Budget,
): Promise<{ run: TestRun; cpu: number }> {
  const key = [ctx.row.base_commit, ctx.kind, ctx.runner, file];
  const Entry = z.object({ run: TestRunEntry, cpu: z.number() });
  const hit = await ctx.cache.get("base-module", key, Entry);
  if (hit && (hit.run.ok || !hit.run.timedOut || hit.cpu >= cpu)) return hit;
  const run = await runWith(ctx, undefined, [file], cpu);
  budget.spent += run.cpuSeconds;
  const entry = { run, cpu };
  await ctx.cache.put("base-module", key, entry);
  return entry;
}

/**
 * The chosen modules at the base commit, one run each in order of relevance. A module runs once
 * here and once with each of the `groups` candidates, so it may take at most its share of what the
 * budget has left after the kept modules' expected runs: (left - kept * groups) / (groups + 1)
 * CPU seconds (and `regression.timeout`). One that takes longer, fails to run or has no passing
 * test is left out, and the next is tried.
 */
async function baseTests(
  files: string[],
  groups: number,
  ctx: ExecutionContext,
  budget: Budget,
): Promise<BaseTests> {
  const out: BaseTests = { files: [], pass: [], cpuSeconds: 0, left: [], failed: 0 };
  for (const file of files) {
    const share = Math.floor((budget.limit - budget.spent - out.cpuSeconds * groups) / (groups + 1));
    const cpu = Math.min(ctx.config.regression.timeout, share);
    if (cpu < 1) {
      out.left.push(`${file}: no share of the test budget left`);
      continue;
    }
    const { run } = await baseRunOf(ctx, file, cpu, budget);
    if (!run.ok) {
      out.left.push(`${file}: ${run.error}`);
      if (!run.timedOut) out.failed++;
      continue;
    }
    const pass = Object.entries(run.statuses)
      .filter(([, s]) => passing(s))
      .map(([t]) => t);
    if (pass.length === 0) {
      out.left.push(`${file}: none of its tests passes at the base commit`);
      continue;
    }
    out.files.push(file);
    out.pass.push(...pass.filter((t) => !out.pass.includes(t)));
    out.cpuSeconds += run.cpuSeconds;
  }
  return out;
}

/**
 * Step 2: the relevant test modules at the base commit (baseTests), then the kept ones together
 * with each text group's first unit, under twice their base CPU time and 10 s more.
 */
async function regression(groups: Unit[], ctx: ExecutionContext, out: Execution, budget: Budget) {
  const cfg = ctx.config.regression;
  if (!ctx.runner) {
    out.regression = { files: [], passingAtBase: 0, skipped: ctx.runnerProblem ?? "no test command" };
    out.untested = out.regression.skipped;
    return;
  }
  const chosen = await relevantTests(groups, ctx);
  if (chosen.length === 0) {
    out.regression = {
      files: chosen,
      passingAtBase: 0,
      skipped: "no test module is named after or imports the changed modules",
    };
    return;
  }
  const base = await baseTests(chosen, groups.length, ctx, budget);
  const files = base.files;
  const pass = base.pass;
  out.regression = {
    files,
    passingAtBase: pass.length,
    ...(base.left.length ? { left: base.left } : {}),
  };
  if (files.length === 0) {
    out.regression.skipped = `no chosen test module runs at the base commit within its share of the budget (${base.left.join("; ")})`;
    if (base.failed === chosen.length)
      out.untested = `the tests could not run at the base commit (${base.left.join("; ")})`;
    return;
  }
  const wanted = Math.min(cfg.timeout, Math.ceil(2 * base.cpuSeconds + 10));
  const key0 = [ctx.row.base_commit, ctx.kind, ctx.runner, files];
  for (const u of groups) {
    const r = await budgetedRun(ctx, "regression-cpu", [...key0, u.textKey], budget, wanted, (t) =>
      runWith(ctx, u, files, t),
    );
    if ("budget" in r) {
      out.regressionOf.set(u.textKey, { tested: false, broke: [], kept: 0, error: r.budget, cached: false });
      continue;
    }
    if (!r.run.ok) {
      // A candidate under which the tests hang or give no results breaks every one of them.
      out.regressionOf.set(u.textKey, {
        tested: true,
        broke: pass,
        kept: 0,
        error: r.run.error,
        ...(r.run.timedOut ? { timed_out: true } : {}),
        cached: r.cached,
      });
      continue;
    }
    const statuses = r.run.statuses;
    const broke = pass.filter((t) => !passing(statuses[t] ?? "missing"));
    const excused = expectedToChange(
      broke,
      changedFunctionNames(u.patch),
      String(ctx.row.problem_statement ?? ""),
    );
    out.regressionOf.set(u.textKey, {
      tested: true,
      broke,
      ...(excused.length ? { expected_to_change: excused } : {}),
      kept: pass.length - broke.length,
      cached: r.cached,
    });
  }
}

/** A cached run of the examples, or a fresh one under `examples.timeout` and the budget left (cached and counted). */
async function examplesRun(
  ctx: ExecutionContext,
  input: ExamplesInput,
  unit: Unit | undefined,
  budget: Budget,
): Promise<{ run: ExamplesRun; cached: boolean } | { budget: string }> {
  const key = [ctx.row.base_commit, ctx.kind, ctx.runner, input, unit?.textKey ?? null];
  const hit = await ctx.cache.get("examples", key, ExamplesEntry);
  if (hit) return { run: hit, cached: true };
  const left = Math.floor(budget.limit - budget.spent);
  if (left < 1) return { budget: `not run: the instance's test budget (${budget.limit} CPU s) was spent` };
  const cpu = Math.min(ctx.config.examples.timeout, left);
  type Ran = { run: Awaited<ReturnType<Workbench["runExamples"]>> } | { notApplied: string };
  const ran = await withBench<Ran>(
    ctx,
    unit,
    async (bench) => ({ run: await bench.runExamples(input, { cpu, wall: ctx.config.wall_timeout }) }),
    (error) => ({ notApplied: error }),
  );
  if ("notApplied" in ran) return { run: { ok: false, error: ran.notApplied, cpuSeconds: 0 }, cached: false };
  const { run } = ran;
  budget.spent += run.cpuSeconds;
  const entry: ExamplesRun = run.ok
    ? { ok: true, outputs: run.outputs, cpuSeconds: run.cpuSeconds }
    : { ok: false, error: run.error, cpuSeconds: run.cpuSeconds };
  if (!run.ok && cpu < ctx.config.examples.timeout)
    return { budget: `not run: stopped when the instance's test budget (${budget.limit} CPU s) ran out` };
  await ctx.cache.put("examples", key, entry);
  return { run: entry, cached: false };
}

/**
 * Step 3b: the issue's own Python examples (examples.ts) at the base commit, then with each text
 * group's first unit; a candidate's result is which examples print something else than at the
 * base commit.
 */
async function issueExampleRuns(groups: Unit[], ctx: ExecutionContext, out: Execution, budget: Budget) {
  const examples = issueExamples(String(ctx.row.problem_statement ?? ""));
  if (examples.length === 0) {
    out.examples = { count: 0, ran: false, reason: "the issue shows no Python example" };
    return;
  }
  // the packages of every candidate's changed Python files, the same for every run of one instance
  const files = [...new Set(groups.flatMap((u) => u.files.filter((f) => f.endsWith(".py"))))].sort();
  const input: ExamplesInput = { examples, files };
  const atBase = await examplesRun(ctx, input, undefined, budget);
  if ("budget" in atBase) {
    out.examples = { count: examples.length, ran: false, reason: atBase.budget };
    return;
  }
  if (!atBase.run.ok) {
    out.examples = {
      count: examples.length,
      ran: false,
      reason: `the examples do not run at the base commit: ${atBase.run.error}`,
    };
    return;
  }
  const base = atBase.run.outputs;
  const statement = statementText(String(ctx.row.problem_statement ?? ""), examples);
  const usable = base.filter((o) => o !== null).length;
  if (usable === 0) {
    out.examples = {
      count: examples.length,
      ran: false,
      reason: "no example parses as Python and prints the same twice at the base commit",
    };
    return;
  }
  out.examples = {
    count: examples.length,
    ran: true,
    reason: `${usable} of ${examples.length} example(s) run at the base commit`,
  };
  for (const u of groups) {
    const r = await examplesRun(ctx, input, u, budget);
    if ("budget" in r) continue;
    if (!r.run.ok) {
      out.examplesOf.set(u.textKey, { changed: null, stated: null, error: r.run.error, cached: r.cached });
      continue;
    }
    out.examplesOf.set(u.textKey, {
      changed: changedExamples(base, r.run.outputs),
      stated: statedExamples(statement, base, r.run.outputs),
      outputs_sha256: sha(JSON.stringify(r.run.outputs)),
      cached: r.cached,
    });
  }
}

/** Step 3: a model's reproduction test, kept when it fails at the base commit, run with each group. */
async function reproduction(groups: Unit[], ctx: ExecutionContext, out: Execution, budget: Budget) {
  const cfg = ctx.config.reproduce;
  const model = ctx.reproducer;
  if (!model) return;
  if (!ctx.runner) {
    out.reproduction = { kept: false, reason: ctx.runnerProblem ?? "no test command" };
    return;
  }
  const askKey = [ctx.row.problem_statement, model.name, cfg.template];
  let answer = await ctx.cache.get("repro-test", askKey, ReproEntry);
  if (!answer) {
    answer = await askForTest(model, cfg.template, String(ctx.row.problem_statement ?? ""), ctx.signal);
    await ctx.cache.put("repro-test", askKey, answer);
  }
  if (!answer.ok) {
    out.reproduction = { kept: false, reason: `no usable test: ${answer.problem}` };
    return;
  }
  const test = { path: REPRO_TEST_PATH, text: answer.test };
  const base = [ctx.row.base_commit, ctx.kind, ctx.runner, sha(answer.test)];
  const atBase = await budgetedRun(ctx, "repro-base", base, budget, cfg.timeout, (t) =>
    runWith(ctx, undefined, [REPRO_TEST_PATH], t, test),
  );
  if ("budget" in atBase) {
    out.reproduction = { kept: false, reason: atBase.budget };
    return;
  }
  if (!atBase.run.ok) {
    out.reproduction = {
      kept: false,
      reason: `the test does not run at the base commit: ${atBase.run.error}`,
    };
    return;
  }
  const failing = Object.entries(atBase.run.statuses)
    .filter(([, s]) => s === "FAILED" || s === "ERROR")
    .map(([t]) => t);
  if (failing.length === 0) {
    out.reproduction = {
      kept: false,
      reason: "the test passes at the base commit, so it does not reproduce the issue",
    };
    return;
  }
  out.reproduction = {
    kept: true,
    reason: `${failing.length} test(s) fail at the base commit`,
    tests: failing,
  };
  for (const u of groups) {
    const r = await budgetedRun(ctx, "repro", [...base, u.textKey], budget, cfg.timeout, (t) =>
      runWith(ctx, u, [REPRO_TEST_PATH], t, test),
    );
    // untested: its reproduction result is unknown (the vote then leaves it out if others were tested)
    if ("budget" in r) continue;
    if (!r.run.ok) {
      out.reproductionOf.set(u.textKey, {
        passed: 0,
        of: failing.length,
        error: r.run.error,
        cached: r.cached,
      });
      continue;
    }
    const statuses = r.run.statuses;
    const passed = failing.filter((t) => statuses[t] === "PASSED").length;
    out.reproductionOf.set(u.textKey, { passed, of: failing.length, cached: r.cached });
  }
}

/**
 * Runs steps 1 (apply, syntax tree), 2 (regression) and 3 (reproduction) for the units of one
 * instance; `groups` are the units standing for each text key, most popular first (the order the
 * budget is spent in).
 */
export async function execute(units: Unit[], groups: Unit[], ctx: ExecutionContext): Promise<Execution> {
  const out: Execution = {
    applies: new Map(),
    regressionOf: new Map(),
    examplesOf: new Map(),
    reproductionOf: new Map(),
  };
  await checkApplies(units, ctx, out);
  const live = groups.filter((g) => out.applies.get(g.sha)?.applies);
  const budget: Budget = { limit: ctx.config.budget, spent: 0 };
  // the examples first: they are short, and they speak to the issue itself
  if (ctx.config.examples.enabled && live.length > 1) await issueExampleRuns(live, ctx, out, budget);
  if (ctx.config.regression.enabled && live.length > 1) await regression(live, ctx, out, budget);
  if (ctx.config.reproduce.enabled && live.length > 1) await reproduction(live, ctx, out, budget);
  return out;
}
