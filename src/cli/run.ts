import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { runAgent } from "../agent/agent.js";
import { createActionRunner } from "../agent/create-runner.js";
import { checkTemplates } from "../config/checks.js";
import { ConfigError } from "../config/errors.js";
import { createModel } from "../models/create-model.js";
import type { Model } from "../models/types.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { type AgentFlags, addAgentOptions, guarded, loadAgentConfig } from "./common.js";
import { openTaskEnvironment } from "./open-environment.js";
import { createPrinter } from "./printer.js";

interface RunFlags extends AgentFlags {
  repo: string;
  task?: string;
  taskFile?: string;
  output?: string;
  quiet?: boolean;
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
}

function readTask(flags: RunFlags): string {
  if (flags.task && flags.taskFile) throw new ConfigError("give --task or --task-file, not both");
  if (flags.task) return flags.task;
  if (flags.taskFile) {
    if (!existsSync(flags.taskFile)) throw new ConfigError(`--task-file ${flags.taskFile}: no such file`);
    return readFileSync(flags.taskFile, "utf8");
  }
  throw new ConfigError("no task: give --task TEXT or --task-file FILE");
}

/**
 * An output folder inside the repository would end up in the patch (`git add -A`): list it in
 * the repository's local exclude file (.git/info/exclude, never committed).
 */
function keepOutOfPatch(repo: string, outDir: string): void {
  const rel = relative(repo, outDir);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return;
  const exclude = join(repo, ".git", "info", "exclude");
  const line = `/${rel.split(sep).join("/")}/`;
  const current = existsSync(exclude) ? readFileSync(exclude, "utf8") : "";
  if (current.split("\n").includes(line)) return;
  mkdirSync(dirname(exclude), { recursive: true });
  appendFileSync(exclude, `${current && !current.endsWith("\n") ? "\n" : ""}${line}\n`);
}

/** `patchloop run`: one task on a local git repository. Exit 0 when submitted, 1 otherwise. */
export async function runCommand(flags: RunFlags): Promise<number> {
  const repo = resolve(flags.repo);
  if (!existsSync(repo) || !statSync(repo).isDirectory())
    throw new ConfigError(`--repo ${flags.repo}: not a directory`);
  if (!existsSync(join(repo, ".git")))
    throw new ConfigError(
      `--repo ${flags.repo}: not a git repository (no .git); patchloop needs git to record the patch`,
    );
  const task = readTask(flags);
  const { config } = loadAgentConfig(flags, "default");
  if (!config.model.model_name)
    throw new ConfigError(
      "no model: pass -m openai/<name>, -m anthropic/<name> or -m replay:<file>, or set model.model_name",
    );
  let model: Model;
  try {
    model = createModel(config.model);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const name = basename(repo);
  const instance = { repo: name, instance_id: name, problem_statement: task };
  checkTemplates(config, instance);
  const outDir = resolve(flags.output ?? join("patchloop-runs", `run-${stamp()}`));
  keepOutOfPatch(repo, outDir);
  const trajPath = join(outDir, name, `${name}.traj.json`);
  const patchPath = join(outDir, name, `${name}.patch`);
  const env = await openTaskEnvironment(config, repo);
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write("\ninterrupted: saving the trajectory (press Ctrl-C again to quit at once)\n");
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const print = flags.quiet
    ? undefined
    : createPrinter((s) => process.stdout.write(s), process.stdout.isTTY === true);
  try {
    const result = await runAgent({
      config,
      model,
      env,
      runner: createActionRunner(config),
      task,
      instance,
      instanceId: name,
      trajectoryPath: trajPath,
      onEvent: print,
      signal: abort.signal,
    });
    await writeFileAtomic(patchPath, result.submission);
    await writeFileAtomic(
      join(outDir, "preds.json"),
      `${JSON.stringify({ [name]: { instance_id: name, model_name_or_path: config.model.model_name, model_patch: result.submission } }, null, 2)}\n`,
    );
    process.stdout.write(
      `exit status: ${result.exitStatus} (${result.exitMessage})\ntrajectory: ${trajPath}\npatch:      ${patchPath} (${result.submission.length} bytes)\n`,
    );
    return result.exitStatus === "Submitted" ? 0 : 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await env.close();
  }
}

export function register(program: Command): void {
  addAgentOptions(
    program
      .command("run")
      .description("let a model fix a task in a local git repository")
      .requiredOption("--repo <DIR>", "the git repository to work in")
      .option("--task <TEXT>", "the task (issue text)")
      .option("--task-file <FILE>", "read the task from a file")
      .option(
        "-o, --output <DIR>",
        "where to write the trajectory and patch (default: patchloop-runs/run-<time>)",
      )
      .option("--quiet", "do not print the steps"),
  ).action((flags: RunFlags) => guarded(() => runCommand(flags)));
}
