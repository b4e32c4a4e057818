import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { mkdir, rmdir } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import pc from "picocolors";
import { createActionRunner } from "../agent/create-runner.js";
import { createProtocol } from "../agent/protocols/create.js";
import { checkTemplates } from "../config/checks.js";
import { ConfigError } from "../config/errors.js";
import type { Config } from "../config/schema.js";
import { createScrubber, secretsOf } from "../config/secret-values.js";
import type { Environment } from "../environments/types.js";
import { endOfRun } from "../interactive/end-of-run.js";
import { FINISH_CHOICES, type FinishChoice } from "../interactive/finish.js";
import { Keyboard } from "../interactive/keyboard.js";
import { modeNote, resolveMode } from "../interactive/modes.js";
import { terminalAsk } from "../interactive/prompts.js";
import { toldFrom } from "../interactive/told.js";
import {
  closeWorkspace,
  describeWorkspace,
  environmentFor,
  openWorkspace,
  quitWorkspace,
  removalHint,
} from "../interactive/workspace.js";
import { createModel } from "../models/factory/create-model.js";
import type { Model } from "../models/types.js";
import { PredsFile, predOf } from "../run-folder/preds-file.js";
import type { TaskOutcome } from "../task/outcome.js";
import { runTask, type WorkTreeChanges } from "../task/run-task.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { type AgentFlags, addAgentOptions, guarded, loadAgentConfig, NO_MODEL } from "./common.js";
import { openTaskEnvironment } from "./open-environment.js";
import { createPrinter } from "./printer.js";

interface RunFlags extends AgentFlags {
  repo: string;
  task?: string;
  taskFile?: string;
  output?: string;
  quiet?: boolean;
  mode?: string;
  inPlace?: boolean;
  allowDirty?: boolean;
  finish?: string;
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
  const realRepo = realPath(repo);
  // compared by real paths: a link to the repository, or a link inside it, is the repository
  const inside = (dir: string) => {
    const rel = relative(realRepo, realPath(dir));
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
    dir = join(inside(here) ? join(dirname(realRepo), "patchloop-runs") : here, `run-${stamp()}`);
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

/** `path` with every symbolic link resolved, also when its last parts do not exist yet. */
function realPath(path: string, depth = 0): string {
  const abs = resolve(path);
  if (existsSync(abs)) return realpathSync(abs);
  const parent = dirname(abs);
  if (parent === abs) return abs;
  const here = join(realPath(parent, depth), basename(abs));
  // a link whose target does not exist (yet): where writing through it would go
  if (depth < 40 && lstatSync(here, { throwIfNoEntry: false })?.isSymbolicLink())
    return realPath(resolve(dirname(here), readlinkSync(here)), depth + 1);
  return here;
}

/** `YYYYMMDD-HHMMSS-xxxx`: the run's id (the worktree's branch is `patchloop/<id>`). */
function newRunId(): string {
  return `${stamp()}-${randomBytes(2).toString("hex")}`;
}

function finishFlag(flag: string | undefined): FinishChoice | undefined {
  if (flag === undefined) return undefined;
  if (!(FINISH_CHOICES as readonly string[]).includes(flag))
    throw new ConfigError(`--finish ${flag}: give one of ${FINISH_CHOICES.join(", ")}`);
  return flag as FinishChoice;
}

/**
 * A container environment needs an image, which the swebench configs take from each row: on a host
 * repository there is none, so the person is told what to add before anything is made.
 */
function checkHostEnvironment(config: Config): void {
  const kind = config.environment.environment_class;
  if ((kind === "docker" || kind === "podman") && !config.environment.image)
    throw new ConfigError(
      `the config runs commands in a ${kind} container (environment.environment_class: ${kind}, as the swebench ` +
        "configs do, where each SWE-bench row names its image), but gives no image for your repository. Add " +
        "--environment bwrap (a sandbox on this machine) or --environment local (no isolation), or --image IMAGE " +
        `to run it in a ${kind} container of that image with the repository mounted.`,
    );
}

/** Removes `dir` and the folders above it up to `top` (what mkdir made), each only if empty. */
async function removeEmpty(dir: string, top: string | undefined): Promise<void> {
  if (!top) return;
  for (let d = dir; d.startsWith(top); d = dirname(d)) {
    if (
      !(await rmdir(d).then(
        () => true,
        () => false,
      ))
    )
      return;
    if (d === top) return;
  }
}

/** `patchloop run`: one task on a local git repository. Exit 0 when submitted, 1 otherwise. */
export async function runCommand(flags: RunFlags): Promise<number> {
  if (!existsSync(flags.repo) || !statSync(flags.repo).isDirectory())
    throw new ConfigError(`--repo ${flags.repo}: not a directory`);
  // the real path: everything below (the run folder's place, the sandbox's binds) compares and
  // shows the folder itself, never a link to it
  const repo = realpathSync(flags.repo);
  if (!existsSync(join(repo, ".git")))
    throw new ConfigError(
      `--repo ${flags.repo}: not a git repository (no .git); patchloop needs git to record the patch`,
    );
  if (flags.allowDirty && !flags.inPlace)
    throw new ConfigError(
      "--allow-dirty goes with --in-place: without it the agent works in a worktree at HEAD and your changes are never touched",
    );
  const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const mode = resolveMode(flags.mode, terminal);
  const finish = finishFlag(flags.finish);
  const task = readTask(flags);
  const { config } = loadAgentConfig(flags, "default");
  if (!config.model.model_name) throw new ConfigError(NO_MODEL);
  let model: Model;
  try {
    model = createModel(config.model);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const name = basename(repo);
  const instance = { repo: name, instance_id: name, problem_statement: task };
  checkTemplates(config, instance);
  // checked on every run, so a broken template is found before a terminal run needs it
  const told = toldFrom(config.run.interactive);
  const note = (m: string) => process.stderr.write(`note: ${m}\n`);
  checkHostEnvironment(config);
  const outDir = runOutputDir(repo, flags.output, note);
  const trajPath = join(outDir, name, `${name}.traj.json`);
  const patchPath = join(outDir, name, `${name}.patch`);
  // the first folder this run makes: removed again (when still empty) if the environment cannot start
  const madeDir = await mkdir(outDir, { recursive: true });
  const ws = await openWorkspace({
    repo,
    mode: flags.inPlace ? "in-place" : "worktree",
    allowDirty: flags.allowDirty === true,
    runId: newRunId(),
    worktreeDir: join(outDir, "worktree", name),
  }).catch(async (err: Error) => {
    await removeEmpty(outDir, madeDir);
    throw err;
  });
  const color = process.stdout.isTTY === true;
  const scrub = createScrubber(secretsOf({ config }));
  const write = (s: string) => process.stdout.write(s);
  for (const line of describeWorkspace(ws)) write(`${line}\n`);
  const run = new AbortController();
  let env: Environment;
  try {
    env = await openTaskEnvironment(
      { ...config, environment: await environmentFor(ws, config.environment) },
      ws.dir,
    );
  } catch (err) {
    await closeWorkspace(ws).catch(() => {});
    await removeEmpty(outDir, madeDir);
    throw err;
  }
  const runner = createActionRunner(config);
  // quitting at once (a third Ctrl-C, a second signal) still ends the workspace, or says where it is
  const quit = (): never => {
    for (const line of quitWorkspace(ws)) process.stderr.write(`\n${line}\n`);
    process.exit(130);
  };
  const keyboard = terminal
    ? new Keyboard(run, (line) => write(`\n${pc.createColors(color).yellow(line)}\n`), quit)
    : null;
  // only a terminal run has a person to ask: the session (and the diff library its views use) is
  // loaded then
  const session = keyboard
    ? new (await import("../interactive/session.js")).InteractiveSession({
        mode,
        config,
        protocol: createProtocol(config, runner.specs),
        env,
        ask: terminalAsk(run.signal),
        keyboard,
        run,
        write,
        color,
        scrub,
        told,
      })
    : null;
  const onSignal = () => {
    if (run.signal.aborted) quit();
    process.stderr.write("\ninterrupted: saving the trajectory (press Ctrl-C again to quit at once)\n");
    run.abort();
  };
  if (keyboard) keyboard.listen();
  else process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const limit = config.agent.step_limit;
  const print = flags.quiet
    ? undefined
    : createPrinter(write, color, scrub, {
        stepsLeft: session ? (step) => session.stepsLeft(step) : (step) => (limit > 0 ? limit - step : null),
        actions: session === null,
      });
  if (session) write(`${modeNote(mode)}\n\n`);
  // the changes are read where the agent worked, with its time limit, before it is released: git
  // here never runs in a tree the agent wrote (it could plant a repository, a monitor or a filter)
  let changes: WorkTreeChanges = { error: "the agent did not run" };
  const predsFile = new PredsFile(outDir);
  let outcome: TaskOutcome;
  try {
    outcome = await runTask({
      config,
      instanceId: name,
      task,
      instance,
      model: () => model,
      wrapModel: session ? (m) => session.wrapModel(m) : undefined,
      modelName: model.name,
      trajectoryPath: trajPath,
      open: async () => ({ env, baseCommit: ws.base, cleanup: () => env.close() }),
      signal: run.signal,
      runner: session ? session.wrapRunner(runner) : runner,
      hooks: session?.hooks(),
      onEvent: print,
      log: (line) => process.stderr.write(`${line}\n`),
      onChanges: (read) => {
        changes = read;
      },
    });
  } catch (err) {
    write(`the agent's work is left as it is in ${ws.dir}\n`);
    if (ws.mode === "worktree") write(`${removalHint(ws)}\n`);
    throw err;
  } finally {
    keyboard?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (outcome.masked_lines)
    process.stderr.write(
      `WARNING: ${outcome.masked_lines} line(s) of the patch held a secret value (an API key or token) and were masked as ***; ` +
        "the patch may no longer apply where a masked line was context.\n",
    );
  await writeFileAtomic(patchPath, outcome.patch);
  await predsFile.set(predOf(outcome, config.model.model_name));
  write(
    `exit status: ${outcome.exit_status} (${outcome.exit_message})\ntrajectory: ${trajPath}\npatch:      ${patchPath} (${outcome.patch.length} bytes)\n`,
  );
  await endOfRun({
    ws,
    choice: finish ?? (session ? null : ws.mode === "worktree" ? "discard" : "apply"),
    ask: terminalAsk(new AbortController().signal),
    submission: outcome.patch,
    changes,
    patchPath,
    message: `patchloop run ${ws.runId} (${outcome.exit_status})\n\n${task.split("\n")[0].slice(0, 200)}\n`,
    write,
    color,
    scrub,
  });
  return outcome.exit_status === "Submitted" ? 0 : 1;
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
      .option("--quiet", "do not print the steps")
      .option("--mode <MODE>", "confirm, yolo or human (default: confirm on a terminal, yolo otherwise)")
      .option("--in-place", "work in the repository itself instead of a worktree at HEAD")
      .option(
        "--allow-dirty",
        "with --in-place: work on a tree with uncommitted changes (they join the patch)",
      )
      .option(
        "--finish <CHOICE>",
        "what to do with the patch at the end: apply, branch or discard (default: ask on a terminal; " +
          "otherwise discard in a worktree, apply in place; the patch file is written either way)",
      ),
  ).action((flags: RunFlags) => guarded(() => runCommand(flags)));
}
