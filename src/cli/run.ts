import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { runAgent } from "../agent/agent.js";
import { createActionRunner } from "../agent/create-runner.js";
import { checkTemplates } from "../config/checks.js";
import { ConfigError } from "../config/errors.js";
import { createScrubber, secretsOf } from "../config/secret-values.js";
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
 * The run's output folder. It is never inside the repository: the agent could rewrite its own
 * trajectory there, or point it elsewhere through a link. `-o` inside the repository is refused;
 * the default is `patchloop-runs/run-<time>` in the current folder, or beside the repository when
 * the current folder is inside it. An existing folder is never reused: a new one is made beside it.
 */
export function runOutputDir(repo: string, flag: string | undefined, notice: (m: string) => void): string {
  const inside = (dir: string) => {
    const rel = relative(repo, dir);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  };
  let dir: string;
  if (flag !== undefined) {
    dir = resolve(flag);
    if (inside(dir)) {
      throw new ConfigError(
        `-o ${flag} is inside the repository ${repo}: the agent could change what records it there. ` +
          "Give a folder outside the repository.",
      );
    }
  } else {
    const here = resolve("patchloop-runs");
    dir = join(inside(here) ? join(dirname(repo), "patchloop-runs") : here, `run-${stamp()}`);
  }
  if (!existsSync(dir)) return dir;
  for (let n = 2; ; n++) {
    const next = `${dir}-${n}`;
    if (!existsSync(next)) {
      notice(`${dir} exists already; writing to ${next} instead`);
      return next;
    }
  }
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
  const outDir = runOutputDir(repo, flags.output, (m) => process.stderr.write(`note: ${m}\n`));
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
    : createPrinter(
        (s) => process.stdout.write(s),
        process.stdout.isTTY === true,
        createScrubber(secretsOf({ config })),
      );
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
    const masked = result.trajectory.info.submission_masked_lines;
    if (masked)
      process.stderr.write(
        `WARNING: ${masked} line(s) of the patch held a secret value (an API key or token) and were masked as ***; ` +
          "the patch may no longer apply where a masked line was context.\n",
      );
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
        "where to write the trajectory and patch, outside the repository (default: patchloop-runs/run-<time>)",
      )
      .option("--quiet", "do not print the steps"),
  ).action((flags: RunFlags) => guarded(() => runCommand(flags)));
}
