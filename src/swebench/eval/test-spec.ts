import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { parseTestList } from "../dataset/errors.js";
import type { SwebenchInstance } from "../types.js";
import { getLogParser } from "./parsers/index.js";
import { getModifiedFiles, getNewFiles, getTestDirectives } from "./patch-files.js";
import { type EvalSpec, lookupSpec } from "./spec-table.js";

/**
 * Specs for repositories beyond the official table (`--specs FILE`, JSON or YAML):
 * `{ "<owner/repo>": { "log_parser": "pytest", "versions": { "<version>" | "*": EvalSpec } } }`,
 * optionally wrapped in `{ "repos": ... }` (the layout of harness-specs-python.v4.1.0.json, which
 * can be passed as it is). Entries here win over the built-in table.
 */
export type SpecOverrides = Record<string, { log_parser: string; versions: Record<string, EvalSpec> }>;

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
  /** Where test_cmd/log_parser came from: `row`, `specs file`, `harness table`. */
  source: string;
}

/** An instance that cannot be evaluated as given (bad row, no spec): a per-instance error. */
export class InstanceSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InstanceSpecError";
  }
}

/** Reads a `--specs` file; a bad file is an Error naming it. */
export async function loadSpecOverrides(path: string): Promise<SpecOverrides> {
  const text = await readFile(path, "utf8");
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
  for (const [repo, entry] of Object.entries(repos as Record<string, unknown>)) {
    const e = entry as { log_parser?: unknown; versions?: unknown };
    if (!e || typeof e.log_parser !== "string" || !e.versions || typeof e.versions !== "object") {
      throw new Error(
        `--specs ${path}: ${repo} needs "log_parser" (a parser name) and "versions" (version or "*" -> {test_cmd, ...})`,
      );
    }
    getLogParser(e.log_parser);
    for (const [version, spec] of Object.entries(e.versions as Record<string, unknown>)) {
      if (!spec || typeof (spec as EvalSpec).test_cmd !== "string") {
        throw new Error(`--specs ${path}: ${repo} version ${version} has no test_cmd string`);
      }
    }
  }
  return repos as SpecOverrides;
}

function pick(
  instance: SwebenchInstance,
  overrides?: SpecOverrides,
): { spec: EvalSpec; parser?: string; source: string } | undefined {
  const o = overrides?.[instance.repo];
  const fromFile = o ? (o.versions[instance.version] ?? o.versions["*"]) : undefined;
  if (fromFile) return { spec: fromFile, parser: o?.log_parser, source: "specs file" };
  const table = lookupSpec(instance.repo, instance.version);
  if (table) return { spec: table, parser: table.log_parser, source: "harness table" };
  return undefined;
}

/**
 * Resolves what to run and how to read it for one instance: `test_cmd` and `log_parser` from the
 * row itself where present, else from the `--specs` overrides, else from the harness's table.
 * A malformed FAIL_TO_PASS/PASS_TO_PASS, a missing test_patch or no known spec throws
 * `InstanceSpecError` (the instance is reported as an error; others go on).
 */
export function resolveTestSpec(instance: SwebenchInstance, overrides?: SpecOverrides): InstanceTestSpec {
  let failToPass: string[];
  let passToPass: string[];
  try {
    failToPass = parseTestList(instance, "FAIL_TO_PASS");
    passToPass = parseTestList(instance, "PASS_TO_PASS");
  } catch (err) {
    throw new InstanceSpecError((err as Error).message);
  }
  if (typeof instance.test_patch !== "string" || instance.test_patch.trim() === "") {
    throw new InstanceSpecError(`instance ${instance.instance_id}: the dataset row has no test_patch`);
  }
  const found = pick(instance, overrides);
  const testCmd = instance.test_cmd ?? found?.spec.test_cmd;
  const logParser = instance.log_parser ?? found?.parser;
  if (!testCmd || !logParser) {
    throw new InstanceSpecError(
      `instance ${instance.instance_id}: no ${testCmd ? "log parser" : "test command"} for ${instance.repo} version ` +
        `${JSON.stringify(instance.version)}. Give the row test_cmd and log_parser fields, or pass --specs FILE ` +
        `mapping the repo (and version or "*") to them.`,
    );
  }
  try {
    getLogParser(logParser);
  } catch (err) {
    throw new InstanceSpecError(`instance ${instance.instance_id}: ${(err as Error).message}`);
  }
  const directives = getTestDirectives(instance.repo, instance.test_patch);
  const source = instance.test_cmd ? "row" : (found?.source ?? "row");
  return {
    testCommand: [testCmd, ...directives].join(" "),
    testCmd,
    directives,
    install: found?.spec.install,
    evalCommands: found?.spec.eval_commands ?? [],
    logParser,
    modifiedFiles: getModifiedFiles(instance.test_patch),
    newFiles: getNewFiles(instance.test_patch),
    failToPass,
    passToPass,
    source,
  };
}
