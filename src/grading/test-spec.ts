import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { parseTestList } from "../dataset/errors.js";
import type { SwebenchInstance } from "../dataset/types.js";
import type { EvalType } from "./grading.js";
import { getLogParser, type HarnessVersion, isPythonParser, type ParserContext } from "./parsers/index.js";
import { getModifiedFiles, getNewFiles, getTestDirectives } from "./patch-files.js";
import { type PythonEnvSpec, pythonSpecFor } from "./python-env.js";
import { type EvalSpec, lookupSpec } from "./spec-table.js";
import { isFailOnlyRepo, lookupCommonSpec, NON_PYTHON_PARSERS } from "./spec-table-multilingual.js";

const PythonEnvEntry = z
  .object({
    python: z.string().min(1).optional(),
    venv: z.string().min(1).optional(),
    pythonpath: z.array(z.string().min(1)).optional(),
    package: z.string().min(1).optional(),
    env: z.record(z.string(), z.string()).optional(),
    setup: z.array(z.string()).optional(),
  })
  .strict();

// The harness's own spec entries carry image-build keys too; they are accepted and not used here.
const VersionEntry = z
  .object({
    test_cmd: z.string().min(1).optional(),
    install: z.string().optional(),
    eval_commands: z.array(z.string()).optional(),
    local: PythonEnvEntry.optional(),
    python: z.string().optional(),
    packages: z.string().optional(),
    pip_packages: z.array(z.string()).optional(),
    pre_install: z.array(z.string()).optional(),
    execute_test_as_nonroot: z.boolean().optional(),
    no_use_env: z.boolean().optional(),
    nano_cpus: z.number().optional(),
  })
  .strict();

const RepoEntry = z
  .object({ log_parser: z.string().min(1).optional(), versions: z.record(z.string(), VersionEntry) })
  .strict();

/** One version's entry of a `--specs` file. */
export type SpecEntry = z.infer<typeof VersionEntry>;

/**
 * Specs for repositories beyond the official table, or host settings for those in it
 * (`--specs FILE`, JSON or YAML): `{ "<owner/repo>": { "log_parser"?: NAME, "versions": {
 * "<version>" | "*": { test_cmd?, install?, eval_commands?, local?: PythonEnvSpec } } } }`,
 * optionally wrapped in `{ "repos": ... }` (the layout of harness-specs-python.v4.1.0.json, which
 * can be passed as it is). Keys set here win over the built-in table; for a repository the table
 * lacks, `log_parser` and `test_cmd` come from here or from the rows (else the instance is an error).
 */
export type SpecOverrides = Record<string, z.infer<typeof RepoEntry>>;

/** Everything the evaluation of one instance needs to know about its tests. */
export interface InstanceTestSpec {
  /** The test command line: the spec's `test_cmd` plus the directives, joined by spaces. */
  testCommand: string;
  testCmd: string;
  directives: string[];
  install?: string;
  evalCommands: string[];
  logParser: string;
  /** Files the test patch modifies (reset to the base commit before and after). */
  modifiedFiles: string[];
  /** Files the test patch creates. */
  newFiles: string[];
  failToPass: string[];
  passToPass: string[];
  /** `pass_and_fail` (every v4 row), or the row's v5 `eval_type`. */
  evalType: EvalType;
  /** A v5 row's own eval.sh (run instead of the one made from the spec). */
  evalScript?: string;
  /** How the tests find Python when they run on the host (local, bwrap). */
  python: PythonEnvSpec;
  /** Where test_cmd/log_parser came from: `row`, `specs file`, `harness table`. */
  source: string;
  /**
   * Which of the harness's eval-script layouts: `python` (make_eval_script_list_py) or `common`
   * (make_eval_script_list_common: the other languages, test commands as listed, build commands
   * after the test patch).
   */
  layout: "python" | "common";
  /** `common` layout: commands run after the test patch is applied, before the tests. */
  build: string[];
  /** What the parser may read of the instance (its id and version). */
  parserContext: ParserContext;
}

/** An instance that cannot be evaluated as given (bad row, no spec): a per-instance error. */
export class InstanceSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InstanceSpecError";
  }
}

/** Whether a row carries the fields of a harness v5 dataset (`eval_script`, `eval_type`). */
export function isV5Row(row: SwebenchInstance): boolean {
  return typeof row.eval_script === "string" || typeof row.eval_type === "string";
}

/** Reads a `--specs` file; a bad file is an Error naming it, the entry and what was wrong. */
export async function loadSpecOverrides(path: string): Promise<SpecOverrides> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`--specs ${path}: cannot be read (${(err as Error).message})`);
  }
  let data: unknown;
  try {
    data = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new Error(`--specs ${path}: cannot be parsed (${(err as Error).message})`);
  }
  const repos = (
    data && typeof data === "object" && "repos" in data ? (data as { repos: unknown }).repos : data
  ) as unknown;
  if (!repos || typeof repos !== "object" || Array.isArray(repos)) {
    throw new Error(`--specs ${path}: expected an object keyed by owner/repo`);
  }
  const out: SpecOverrides = {};
  for (const [repo, entry] of Object.entries(repos as Record<string, unknown>)) {
    const parsed = RepoEntry.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length ? ` at ${issue.path.join(".")}` : "";
      throw new Error(
        `--specs ${path}: ${repo}${where}: ${issue.message}. Each repo maps to {log_parser?, versions: {version or "*": {test_cmd?, install?, eval_commands?, local?: {python, venv, pythonpath, package, env, setup}}}}`,
      );
    }
    const e = parsed.data;
    if (e.log_parser) getLogParser(e.log_parser);
    out[repo] = e;
  }
  return out;
}

function pick(
  instance: SwebenchInstance,
  overrides?: SpecOverrides,
): { spec: EvalSpec | undefined; parser?: string; local?: PythonEnvSpec; source: string } | undefined {
  const o = overrides?.[instance.repo];
  const fromFile = o ? (o.versions[instance.version] ?? o.versions["*"]) : undefined;
  const table = lookupSpec(instance.repo, instance.version);
  if (fromFile) {
    const merged = fromFile.test_cmd ? { ...table, ...fromFile, test_cmd: fromFile.test_cmd } : table;
    return {
      spec: merged as EvalSpec | undefined,
      parser: o?.log_parser ?? table?.log_parser,
      local: fromFile.local,
      source: fromFile.test_cmd || !table ? "specs file" : "harness table",
    };
  }
  if (table) return { spec: table, parser: table.log_parser, source: "harness table" };
  return undefined;
}

/** The interpreter a test command names by absolute path (`/usr/bin/python3 -m pytest`), if any. */
function namedInterpreter(testCmd: string | undefined): string | undefined {
  const first = testCmd?.trim().split(/\s+/)[0];
  return first && /^\/\S*\/python[\d.]*$/.test(first) ? first : undefined;
}

/** What runs a repository's tests and reads their log, with nothing of the row's hidden tests in it. */
export interface TestRunner {
  testCmd: string;
  logParser: string;
  evalCommands: string[];
  python: PythonEnvSpec;
}

/**
 * The test command, log parser, eval commands and host Python of an instance, found as
 * `resolveTestSpec` finds them, without reading FAIL_TO_PASS, PASS_TO_PASS or test_patch (patch
 * selection runs the repository's own tests with it). Throws `InstanceSpecError` when the row and
 * the tables name no test command or parser.
 */
export function resolveTestRunner(
  instance: SwebenchInstance,
  overrides?: SpecOverrides,
  pythonFlag?: string,
): TestRunner {
  const found = pick(instance, overrides);
  const testCmd = instance.test_cmd ?? found?.spec?.test_cmd;
  const logParser = instance.log_parser ?? found?.parser;
  if (!testCmd || !logParser) {
    throw new InstanceSpecError(
      `instance ${instance.instance_id}: no ${testCmd ? "log parser" : "test command"} for ${instance.repo} version ` +
        `${JSON.stringify(instance.version)}. Give the row test_cmd and log_parser fields, or pass --specs FILE mapping the repo to them.`,
    );
  }
  try {
    getLogParser(logParser);
  } catch (err) {
    throw new InstanceSpecError(`instance ${instance.instance_id}: ${(err as Error).message}`);
  }
  return {
    testCmd,
    logParser,
    evalCommands: found?.spec?.eval_commands ?? [],
    python: pythonSpecFor(instance, found?.local, namedInterpreter(testCmd) ?? pythonFlag),
  };
}

/**
 * Resolves what to run and how to read it for one instance: `test_cmd` and `log_parser` from the
 * row itself where present, else from the `--specs` overrides, else from the harness's table. A
 * v5 row brings its own `eval_script`, `log_parser` and `eval_type`. A malformed
 * FAIL_TO_PASS/PASS_TO_PASS, a missing test_patch (v4 rows) or no known spec throws
 * `InstanceSpecError` (the instance is reported as an error; others go on).
 */
export function resolveTestSpec(
  instance: SwebenchInstance,
  overrides?: SpecOverrides,
  pythonFlag?: string,
  harness: HarnessVersion = "4.1",
): InstanceTestSpec {
  let failToPass: string[];
  let passToPass: string[];
  try {
    failToPass = parseTestList(instance, "FAIL_TO_PASS");
    passToPass = parseTestList(instance, "PASS_TO_PASS");
  } catch (err) {
    throw new InstanceSpecError((err as Error).message);
  }
  const evalScript = typeof instance.eval_script === "string" ? instance.eval_script : undefined;
  if (instance.eval_script !== undefined && (evalScript === undefined || evalScript.trim() === "")) {
    throw new InstanceSpecError(
      `instance ${instance.instance_id}: eval_script must be a non-empty string (a bash script)`,
    );
  }
  const testPatch = typeof instance.test_patch === "string" ? instance.test_patch : "";
  if (!evalScript && testPatch.trim() === "") {
    throw new InstanceSpecError(`instance ${instance.instance_id}: the dataset row has no test_patch`);
  }
  let evalType: EvalType = isFailOnlyRepo(instance.repo, harness) ? "fail_only" : "pass_and_fail";
  if (instance.eval_type !== undefined) {
    if (instance.eval_type !== "pass_and_fail" && instance.eval_type !== "fail_only") {
      throw new InstanceSpecError(
        `instance ${instance.instance_id}: eval_type must be "pass_and_fail" or "fail_only", got ${JSON.stringify(instance.eval_type)}`,
      );
    }
    evalType = instance.eval_type;
  }
  const found = pick(instance, overrides);
  // The other languages' table, where neither the row nor the Python table names a test command.
  const common =
    instance.test_cmd || found?.spec ? undefined : lookupCommonSpec(instance.repo, instance.version);
  const testCmd = instance.test_cmd ?? found?.spec?.test_cmd ?? common?.test_cmd.join("\n");
  const logParser =
    instance.log_parser ?? found?.parser ?? common?.log_parser ?? NON_PYTHON_PARSERS[instance.repo];
  if ((!testCmd && !evalScript) || !logParser) {
    throw new InstanceSpecError(
      `instance ${instance.instance_id}: no ${testCmd || evalScript ? "log parser" : "test command"} for ${instance.repo} version ` +
        `${JSON.stringify(instance.version)}. Give the row test_cmd and log_parser fields (or a v5 eval_script), or pass --specs FILE ` +
        `mapping the repo (and version or "*") to them.`,
    );
  }
  try {
    getLogParser(logParser);
  } catch (err) {
    throw new InstanceSpecError(`instance ${instance.instance_id}: ${(err as Error).message}`);
  }
  // Another language's test command (from the harness's table, the row or --specs): eval.sh has
  // that layout (no test directives appended), whoever named the command.
  const otherLanguage = common !== undefined || !isPythonParser(logParser);
  const directives = testPatch && !otherLanguage ? getTestDirectives(instance.repo, testPatch) : [];
  const source = evalScript
    ? "row (v5 eval_script)"
    : instance.test_cmd
      ? "row"
      : common
        ? "harness table (other languages)"
        : (found?.source ?? "row");
  return {
    testCommand: testCmd ? [testCmd, ...directives].join(" ") : "",
    testCmd: testCmd ?? "",
    directives,
    install: found?.spec?.install,
    evalCommands: found?.spec?.eval_commands ?? [],
    logParser,
    modifiedFiles: testPatch ? getModifiedFiles(testPatch) : [],
    newFiles: testPatch ? getNewFiles(testPatch) : [],
    failToPass,
    passToPass,
    evalType,
    evalScript,
    // A test command that names its interpreter runs with that one, whatever --python says.
    python: pythonSpecFor(instance, found?.local, namedInterpreter(testCmd) ?? pythonFlag),
    source,
    layout: otherLanguage ? "common" : "python",
    build: common?.build ?? [],
    parserContext: { instanceId: instance.instance_id, version: instance.version },
  };
}
