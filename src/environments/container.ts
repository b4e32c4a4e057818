import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ownerLabel } from "../util/process-alive.js";
import { endProcesses, waitUntil } from "../util/process-set.js";
import { isPodman, runCli, stderrTail } from "./container-cli.js";
import { ensureImage } from "./container-images.js";
import { registerContainer, unregisterContainer } from "./container-registry.js";
import {
  BASH_ENV_PATH,
  BASH_ENV_SCRIPT,
  EXEC_WRAPPER,
  SIGNAL_GROUP,
  SPAWN_WRAPPER,
  WRITE_BASH_ENV,
} from "./container-scripts.js";
import { execCore, fileCalls, TASK_DEFAULT_ENV } from "./exec-core.js";
import { killGroup, runCaptured, spawnInteractive } from "./host-process.js";
import { Launcher } from "./launcher.js";
import type { Environment } from "./types.js";

/** The ulimits podman is given by default: these machines cannot raise rlimits inside containers. */
export const PODMAN_DEFAULT_ULIMITS = ["nofile=20000:20000", "nproc=32768:32768"];

/** Options of {@link createContainerEnvironment}. */
export interface ContainerEnvironmentOptions {
  /** `docker`, `podman` or a path to either. */
  executable: string;
  /** Image to start; podman gets its fully qualified name when the short name is not present. */
  image: string;
  /** Reported `kind`; default: `podman` when the executable is podman, else `docker`. */
  kind?: string;
  /** Host folder bind-mounted read-write at `mountAt` inside the container. */
  repoDir?: string;
  /** Where `repoDir` appears inside; default its own path. */
  mountAt?: string;
  /** Working directory inside the container; default `mountAt`, else the image's working directory. */
  cwd?: string;
  /** Variables of every command (given to the container at start, after {@link TASK_DEFAULT_ENV}). */
  env?: Record<string, string>;
  /** Names of host variables passed into the container (their values never appear on a command line). */
  forwardEnv?: string[];
  /** Default per-command timeout in seconds. */
  timeout?: number;
  /** Bytes of output kept per command. */
  captureLimit?: number;
  /** Seconds the container lives at most (its main process is `sleep` this long). Default 14400. */
  containerTimeout?: number;
  /** Seconds a pull of a missing image may take. Default 600. */
  pullTimeout?: number;
  /** `--platform` of the pull and the run (e.g. `linux/amd64` under emulation); default: the engine's. */
  platform?: string;
  /** `--memory`, e.g. `4g`. */
  memory?: string | null;
  /** `--cpus`. */
  cpus?: number | null;
  /** `--pids-limit`. */
  pidsLimit?: number | null;
  /** `--network` value (e.g. `none`, `host`, `bridge`); default: the engine's default. */
  network?: string;
  /** `--ulimit` values; default for podman {@link PODMAN_DEFAULT_ULIMITS}, none for docker. */
  ulimits?: string[];
  /** Extra arguments to `run`, before the image. */
  runArgs?: string[];
  /** Value of the `patchloop.run` label (the batch run's id). */
  runId?: string;
}

/**
 * The container's main process (PID 1): lives `$1` seconds, and as its init it reaps the
 * processes orphaned inside (`sleep` would not: their zombies would count against the pids limit
 * forever). A `kill -9 -1` from inside ends its `sleep`, never itself: it starts another.
 */
export const CONTAINER_INIT =
  "end=$((SECONDS + $1)); while ((SECONDS < end)); do sleep $((end - SECONDS)) & wait $!; done";

/**
 * Starts one container for a task (`run -d --rm ...` with {@link CONTAINER_INIT} as its main process, labelled
 * `patchloop=1`, `patchloop.run=<runId>`, `patchloop.owner=<host:pid:start>`). Commands go to a helper
 * shell started by one long-lived `exec -i` (launcher.ts); a command with stdin, or one that arrives
 * while another runs, gets an `exec` of its own. A timeout kills the command's process group inside
 * the container (not only the CLI client) and keeps partial output. The container is removed by `close`, on a failed start, and
 * when the process exits or gets SIGINT/SIGTERM (see container-registry.ts).
 */
export async function createContainerEnvironment(options: ContainerEnvironmentOptions): Promise<Environment> {
  const exe = options.executable;
  const kind = options.kind ?? (isPodman(exe) ? "podman" : "docker");
  const c = await startContainer(options);
  const { name, workdir } = c;
  const envFlags = (env: Record<string, string> | undefined) =>
    Object.entries(env ?? {}).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  const signalGroup = (token: string, signal: "KILL" | "INT") =>
    runCli(exe, ["exec", name, "sh", "-c", SIGNAL_GROUP, "sh", token, signal], { timeout: 30 });

  // One long-lived `exec` runs a helper shell that starts the commands (see launcher.ts): a command
  // then costs a write to a pipe instead of a CLI process and an exec through the engine.
  const launcher = new Launcher(
    {},
    {
      // The helper itself does not read BASH_ENV (an activate script's `set -e` or traps would act on
      // its loop); each command gets it back, so it activates the conda env afresh as before.
      wrap: (argv) => [exe, "exec", "-i", "-w", "/", "-e", "BASH_ENV=", name, ...argv],
      spawnEnv: process.env as Record<string, string>,
      kill: (_helper, pid) =>
        void runCli(exe, ["exec", name, "bash", "-c", 'kill -KILL -- "-$1"', "bash", String(pid)], {
          timeout: 30,
        }),
    },
  );

  /**
   * Ends every process the agent started in the container (all but its init, `sleep`), so that a
   * fork bomb or a runaway background job cannot leave later commands and the final diff without
   * room to run. Where the engine runs on this host, the container is frozen (`pause`), every
   * process in its cgroup but init is killed, and it is thawed: nothing can fork in between. Else
   * `kill -9 -1` from an exec, a few rounds (what forked during one round goes in the next). The
   * launcher's helper goes too: the next command starts a new one.
   */
  async function endAgentProcesses(): Promise<void> {
    launcher.reset();
    if (await killThroughCgroup(exe, name)) return;
    const rounds = "for i in 1 2 3 4 5; do kill -9 -1 2>/dev/null; done; exit 0";
    await runCli(exe, ["exec", "-u", "0", name, "sh", "-c", rounds], { timeout: 30 });
  }

  return {
    kind,
    cwd: workdir,
    exec: execCore({
      name: "container",
      cwd: workdir,
      timeout: options.timeout,
      captureLimit: options.captureLimit ?? 10_000_000,
      launcher,
      isClosed: c.isClosed,
      requestEnv: (env) => ({ BASH_ENV: BASH_ENV_PATH, ...env }),
      direct: (command, run) => {
        const token = randomBytes(6).toString("hex");
        const args = ["exec", ...(run.stdin === undefined ? [] : ["-i"]), "-w", run.cwd];
        args.push(...envFlags(run.env), name, "bash", "-c", EXEC_WRAPPER, "patchloop", token, command);
        return runCaptured([exe, ...args], {
          ...run,
          cwd: "/",
          env: process.env as Record<string, string>,
          stop: async () => {
            await signalGroup(token, "KILL");
          },
        });
      },
      endAll: endAgentProcesses,
    }),
    spawn(argv, opts = {}) {
      const token = randomBytes(6).toString("hex");
      const args = ["exec", "-i", "-w", opts.cwd ?? workdir, ...envFlags(opts.env), name];
      args.push("bash", "-c", SPAWN_WRAPPER, "patchloop", token, ...(argv.length > 0 ? argv : ["bash"]));
      return spawnInteractive([exe, ...args], {
        cwd: "/",
        env: process.env as Record<string, string>,
        interrupt: () => void signalGroup(token, "INT"),
        kill: (child) => {
          void signalGroup(token, "KILL").finally(() => killGroup(child.pid, "SIGKILL"));
        },
      });
    },
    ...fileCalls(
      (argv, input, maxStdout) =>
        runCli(exe, ["exec", ...(input === undefined ? [] : ["-i"]), name, ...argv], {
          input,
          timeout: 300,
          maxStdout,
        }),
      { name: "container", isClosed: c.isClosed, where: " in the container" },
    ),
    async close() {
      if (c.isClosed()) return;
      launcher.close();
      await c.remove();
    },
  };
}

/** A started container: its name, its working directory, and how to remove it. */
interface StartedContainer {
  name: string;
  workdir: string;
  isClosed(): boolean;
  /** Removes the container (and forgets it in the registry); isClosed is true from then on. */
  remove(): Promise<void>;
}

/** Pulls the image when needed, starts the container, writes its BASH_ENV file and finds its working directory. */
async function startContainer(options: ContainerEnvironmentOptions): Promise<StartedContainer> {
  const exe = options.executable;
  const runId = options.runId ?? "adhoc";
  const name = `patchloop-${runId.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 40)}-${randomBytes(4).toString("hex")}`;
  const image = await ensureImage(exe, options.image, options.pullTimeout ?? 600, options.platform);
  registerContainer(name, exe);
  let closed = false;
  const remove = async () => {
    closed = true;
    await runCli(exe, ["rm", "-f", name], { timeout: 120 });
    unregisterContainer(name);
  };
  const started = await runCli(exe, runArguments(options, name, image), { timeout: 300 });
  if (started.code !== 0) {
    await remove();
    throw new Error(`${exe} could not start a container from ${image}: ${stderrTail(started.stderr)}`);
  }
  const rc = await runCli(
    exe,
    ["exec", "-i", "-u", "0", name, "sh", "-c", WRITE_BASH_ENV, "sh", BASH_ENV_PATH],
    {
      input: BASH_ENV_SCRIPT,
      timeout: 60,
    },
  );
  let cwd = options.cwd || insidePath(options);
  if (rc.code === 0 && !cwd) {
    const pwd = await runCli(exe, ["exec", name, "pwd"], { timeout: 60 });
    if (pwd.code === 0) cwd = pwd.stdout.toString("utf8").trim();
  }
  if (rc.code !== 0 || !cwd) {
    await remove();
    throw new Error(
      `the container from ${image} does not answer commands (patchloop needs bash in the image): ${stderrTail(rc.stderr)}`,
    );
  }
  return { name, workdir: cwd, isClosed: () => closed, remove };
}

/** Where the host folder appears inside, when one is mounted. */
function insidePath(options: ContainerEnvironmentOptions): string | undefined {
  return options.repoDir ? (options.mountAt ?? resolve(options.repoDir)) : undefined;
}

/** The arguments of `run` for the container `name` of `image`. */
function runArguments(options: ContainerEnvironmentOptions, name: string, image: string): string[] {
  const podman = isPodman(options.executable);
  const runArgs = ["run", "-d", "--rm", "--pull", "never", "--name", name];
  if (options.platform) runArgs.push("--platform", options.platform);
  runArgs.push("--label", "patchloop=1", "--label", `patchloop.run=${options.runId ?? "adhoc"}`);
  runArgs.push("--label", `patchloop.owner=${ownerLabel()}`);
  runArgs.push("--stop-signal", "SIGKILL", "--entrypoint", "bash");
  runArgs.push("-e", `BASH_ENV=${BASH_ENV_PATH}`);
  // Forwarded names pass no value on the command line (the CLI reads it from its own environment);
  // a name also set in `env` takes the `env` value.
  const forwarded = (options.forwardEnv ?? []).filter(
    (k) => process.env[k] !== undefined && options.env?.[k] === undefined,
  );
  for (const k of forwarded) runArgs.push("-e", k);
  const defaults = Object.entries(TASK_DEFAULT_ENV).filter(
    ([k]) => options.env?.[k] === undefined && !forwarded.includes(k),
  );
  for (const [k, v] of [...defaults, ...Object.entries(options.env ?? {})]) runArgs.push("-e", `${k}=${v}`);
  if (options.network) runArgs.push("--network", options.network);
  if (options.memory) runArgs.push("--memory", options.memory);
  if (options.cpus) runArgs.push("--cpus", String(options.cpus));
  if (options.pidsLimit) runArgs.push("--pids-limit", String(options.pidsLimit));
  for (const u of options.ulimits ?? (podman ? PODMAN_DEFAULT_ULIMITS : [])) runArgs.push("--ulimit", u);
  const inside = insidePath(options);
  if (options.repoDir && inside) runArgs.push("--volume", `${resolve(options.repoDir)}:${inside}`);
  runArgs.push(
    ...(options.runArgs ?? []),
    image,
    "-c",
    CONTAINER_INIT,
    "patchloop-init",
    String(Math.ceil(options.containerTimeout ?? 14_400)),
  );
  return runArgs;
}

/** The cgroup folders of a container's processes (pids controller), seen from this host. */
function containerCgroups(initPid: number): string[] {
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${initPid}/cgroup`, "utf8").split("\n");
  } catch {
    return [];
  }
  const dirs: string[] = [];
  for (const line of lines) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === "") dirs.push(join("/sys/fs/cgroup", m[2]));
    else if (m[1].split(",").includes("pids")) dirs.push(join("/sys/fs/cgroup/pids", m[2]));
  }
  return dirs.filter((d) => existsSync(join(d, "cgroup.procs")));
}

/** The host pids of a container's processes, from its cgroup folders (the engine runs on this host). */
function containerPids(dirs: string[]): number[] {
  const pids = new Set<number>();
  for (const dir of dirs) {
    try {
      for (const p of readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n"))
        if (Number(p) > 0) pids.add(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return [...pids];
}

/** Tasks the pids limit still counts (exited ones too, until they are reaped); 0 when unknown. */
function pidsCurrent(dirs: string[]): number {
  for (const dir of dirs) {
    try {
      return Number(readFileSync(join(dir, "pids.current"), "utf8").trim()) || 0;
    } catch {
      // not the pids hierarchy
    }
  }
  return 0;
}

/**
 * Freezes the container, kills all its processes but init from the host, thaws it. False when
 * the container's processes cannot be seen from here (a remote engine, another pid namespace).
 */
async function killThroughCgroup(exe: string, name: string): Promise<boolean> {
  const inspect = await runCli(exe, ["inspect", "--format", "{{.State.Pid}}", name], { timeout: 30 });
  const initPid = Number(inspect.stdout.toString("utf8").trim());
  // a container's cgroup does not change while it runs: read it once
  const dirs = initPid > 0 ? containerCgroups(initPid) : [];
  if (containerPids(dirs).length === 0) return false;
  const paused = (await runCli(exe, ["pause", name], { timeout: 30 })).code === 0;
  try {
    await endProcesses({
      find: () => containerPids(dirs).filter((p) => p !== initPid),
      // Frozen processes die when thawed: one round is all that is needed then.
      rounds: paused ? 1 : 20,
      pauseMs: paused ? 0 : 50,
    });
  } finally {
    if (paused) await runCli(exe, ["unpause", name], { timeout: 30 });
  }
  // Killed processes take a moment to be reaped, and hold their place under the pids limit until then.
  await waitUntil(
    () => {
      const live = containerPids(dirs).length;
      // init and the sleep it restarts are left; exited tasks count until init has reaped them.
      return live <= 2 && pidsCurrent(dirs) <= live;
    },
    10_000,
    50,
  );
  return true;
}
