import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { modelServerProblem } from "../batch/preflight.js";
import { ConfigError } from "../config/errors.js";
import { resolveLayer } from "../config/layers.js";
import { flagLayer, loadConfig } from "../config/load.js";
import { explicitSettings, ignoredKeys } from "../distributed/machine-config.js";
import { parseQueueUrl } from "../distributed/queue-url.js";
import { queueSecret } from "../distributed/signing.js";
import { defaultSpoolRoot } from "../distributed/spool.js";
import { startWorker } from "../distributed/worker-process.js";
import { environmentProblem } from "../environments/preflight.js";
import { scrubVariable } from "../util/scrub-environ.js";
import { collect, guarded } from "./common.js";

/** The flags of `patchloop worker`. */
export interface WorkerFlags {
  queue: string;
  workers: string;
  config: string[];
  environment?: string;
  reposDir?: string;
  baseUrl?: string;
  spool?: string;
}

const say = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

/**
 * `patchloop worker`: runs instances from the queue, `-w` at a time, until SIGTERM / Ctrl-C (then
 * running ones get `run.queue.grace_seconds` to finish and the rest go back to the queue; a second
 * signal hands them back at once). Started while the queue's Redis does not answer, it says so and
 * registers once it does. Exit 0 when it stopped as asked, 1 when it stopped because a file could
 * not be written, 2 for usage errors and a failed preflight.
 */
export async function runWorkerCommand(flags: WorkerFlags): Promise<number> {
  const queue = parseQueueUrl(flags.queue);
  const slots = Number(flags.workers);
  if (!Number.isInteger(slots) || slots < 1)
    throw new ConfigError(`-w/--workers needs an integer >= 1; got ${JSON.stringify(flags.workers)}`);
  const layers = flags.config.map(resolveLayer);
  if (flags.environment)
    layers.push(
      flagLayer(`--environment ${flags.environment}`, "environment.environment_class", flags.environment),
    );
  if (flags.baseUrl) layers.push(flagLayer(`--base-url ${flags.baseUrl}`, "model.base_url", flags.baseUrl));
  // The swebench built-in is always under the worker's own layers: it gives the machine keys their
  // defaults (docker, no mounts, no network), also when a -c names a file that sets none of them.
  const own = loadConfig({
    configArgs: ["swebench", ...flags.config],
    defaultConfig: "swebench",
    flagLayers: layers.slice(flags.config.length),
    templateInstance: null,
  }).config;
  const explicit = explicitSettings(layers);
  const ignored = ignoredKeys(explicit);
  if (ignored.length > 0)
    say(
      `WARNING: the coordinator's config decides ${ignored.slice(0, 8).join(", ")}${ignored.length > 8 ? ", ..." : ""}; ` +
        "a worker's own config sets only machine settings (environment engine, registry, mounts, network and variables, model.base_url and api_key_env, run.queue, secrets)",
    );
  const reposDir = flags.reposDir ? resolve(flags.reposDir) : undefined;
  if (reposDir && (!existsSync(reposDir) || !statSync(reposDir).isDirectory()))
    throw new ConfigError(`--repos-dir ${flags.reposDir}: not a directory`);
  const kind = own.environment.environment_class;
  if ((kind === "local" || kind === "bwrap") && !reposDir)
    throw new ConfigError(
      `environment ${kind} needs --repos-dir DIR: a folder with one git clone per repository, named owner__repo`,
    );
  const engine = await environmentProblem(own.environment);
  if (engine) throw new ConfigError(engine);
  if (own.model.base_url !== null) {
    const server = await modelServerProblem(
      { ...own.model, model_name: own.model.model_name || "openai/any" },
      (m) => say(`WARNING: ${m}`),
    );
    if (server) throw new ConfigError(server);
  }
  // Read once, then gone from this process's environment and from /proc/<pid>/environ: no command
  // a job runs can see it, not even a `local` one running as this user.
  const secretEnv = own.run.queue.secret_env;
  const secret = queueSecret(secretEnv);
  if (secretEnv !== null && !scrubVariable(secretEnv))
    say(
      `WARNING: ${secretEnv} could not be blanked in /proc/${process.pid}/environ (no /proc here): processes of this ` +
        "user can read it there; run the worker with --environment bwrap, docker or podman",
    );
  let worker: Awaited<ReturnType<typeof startWorker>>;
  try {
    worker = await startWorker({
      queue,
      slots,
      explicit,
      own,
      secret,
      reposDir,
      spoolRoot: flags.spool ? resolve(flags.spool) : defaultSpoolRoot(),
      say,
      // asked after an instance ends as EnvironmentError: an engine that stopped answering is the worker's problem
      engineProblem: () => environmentProblem(own.environment),
    });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const onSignal = () => worker.stop();
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, onSignal);
  const code = await worker.done;
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(s, onSignal);
  say(`worker ${worker.info.id} stopped`);
  return code;
}

/** Adds `worker` to the program. */
export function register(program: Command): void {
  program
    .command("worker")
    .description("run SWE-bench instances from a queue (patchloop swebench --queue) on this machine")
    .requiredOption("--queue <URL>", "redis://HOST:PORT[/DB] of the queue")
    .option("-w, --workers <N>", "instances run at once", "1")
    .option(
      "-c, --config <CONFIG>",
      "this machine's settings: a YAML file or dotted.key=value (environment engine, registry, mounts, network and variables, model.base_url and api_key_env, run.queue, secrets); repeatable",
      collect,
      [],
    )
    .option("--environment <KIND>", "local, bwrap, docker or podman (default: docker; a job's is never used)")
    .option("--repos-dir <DIR>", "local/bwrap: folder with one git clone per repository, named owner__repo")
    .option(
      "--base-url <URL>",
      "the model server this machine sends to (a job's model.base_url is never used; none: the vendor's API)",
    )
    .option(
      "--spool <DIR>",
      "where finished results wait until the coordinator has them (default: under the temp dir)",
    )
    .action((flags: WorkerFlags) => guarded(() => runWorkerCommand(flags)));
}
