import type { Command } from "commander";
import { loadSpecOverrides, type SpecOverrides } from "../grading/test-spec.js";
import { pythonFlag } from "./common.js";

/**
 * The flags `patchloop eval` and `patchloop select` share to say where the tests of an instance
 * run: the dataset, the environment kind, the clones, the host Python, the spec overrides and
 * the workers. Declared and checked here once.
 */
export interface EnvironmentFlags {
  dataset?: string;
  workers: string;
  environment?: string;
  reposDir?: string;
  specs?: string;
  python?: string;
}

/** A flag that cannot be used as given (exit status 2); the message names the flag and the fix. */
export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FlagError";
  }
}

/** What the shared flags resolve to. */
export interface ResolvedEnvironmentFlags {
  workers: number;
  kind: "docker" | "podman" | "local" | "bwrap";
  python?: string;
  specs?: SpecOverrides;
}

export function positiveInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new FlagError(`${flag} needs a positive whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Adds the shared flags; `datasetHelp` says what the command's default dataset is. */
export function addEnvironmentOptions(cmd: Command, datasetHelp: string, workersHelp: string): Command {
  return (
    cmd
      .option("--dataset <NAME|PATH>", datasetHelp)
      .option("-w, --workers <N>", workersHelp, "1")
      // no commander default: a command given a run folder takes the run's own (select DIR); else docker
      .option(
        "--environment <KIND>",
        "docker, podman (instance images), local or bwrap (worktrees of --repos-dir) (default: a run folder's, else docker)",
      )
      .option("--repos-dir <DIR>", "local/bwrap: folder with one git clone per repository, named owner__repo")
      .option(
        "--specs <FILE>",
        "JSON/YAML mapping repo -> {log_parser, versions: {version or *: {test_cmd, install?, eval_commands?}}}",
      )
      .option("--python <PATH>", "local/bwrap: the interpreter the tests run with (default: python3 on PATH)")
  );
}

/** Checks the shared flags (`FlagError` for a bad one) and loads `--specs`. */
export async function resolveEnvironmentFlags(flags: EnvironmentFlags): Promise<ResolvedEnvironmentFlags> {
  const workers = positiveInt(flags.workers, "-w");
  const kind = flags.environment ?? "docker";
  if (kind !== "docker" && kind !== "podman" && kind !== "local" && kind !== "bwrap") {
    throw new FlagError(`--environment must be docker, podman, local or bwrap, got ${JSON.stringify(kind)}`);
  }
  if ((kind === "local" || kind === "bwrap") && !flags.reposDir) {
    throw new FlagError(
      `--environment ${kind} needs --repos-dir DIR (one git clone per repository, named owner__repo)`,
    );
  }
  if (flags.python && kind !== "local" && kind !== "bwrap") {
    throw new FlagError(
      `--python applies to --environment local or bwrap (the tests run on the host), not ${kind}`,
    );
  }
  const python = pythonFlag(flags.python);
  const specs = flags.specs
    ? await loadSpecOverrides(flags.specs).catch((e: Error) => Promise.reject(new FlagError(e.message)))
    : undefined;
  return { workers, kind, python, specs };
}
