import type { ChildProcess } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix, resolve } from "node:path";
import { endProcesses } from "../util/process-set.js";
import { type Cgroup, createCgroup, parseMemory } from "./cgroup.js";
import { runCli, stderrTail } from "./container-cli.js";
import { execCore, fileCalls, SpawnedGroups, TASK_DEFAULT_ENV } from "./exec-core.js";
import { killGroup, runCaptured, spawnInteractive } from "./host-process.js";
import { hostEtcSecrets } from "./host-secrets.js";
import { Launcher } from "./launcher.js";
import { childrenOf, descendantsOf, namespacePids } from "./proc-tree.js";
import type { Environment } from "./types.js";

/** One extra folder or file shown in the sandbox (`environment.binds`). */
export interface SandboxBind {
  /** Host path. */
  source: string;
  /** Path inside the sandbox. */
  target: string;
  writable: boolean;
}

/** Options of {@link createBwrapEnvironment}. */
export interface BwrapEnvironmentOptions {
  /** Host directory of the repository: bound read-write at `mountAt` inside the sandbox. */
  repoDir: string;
  /** Where the repository appears inside the sandbox; default `/testbed`. */
  mountAt?: string;
  /** Working directory inside the sandbox; defaults to `mountAt`. */
  cwd?: string;
  /**
   * Variables of every command. The sandbox does not inherit the host's environment (API keys stay
   * outside): it gets PATH, LANG, LC_ALL, TERM and USER from the host, HOME ({@link SANDBOX_HOME}, a
   * private folder whatever the host's HOME is), {@link TASK_DEFAULT_ENV}, then these.
   */
  env?: Record<string, string>;
  /** Default per-command timeout in seconds. */
  timeout?: number;
  /** Bytes of output kept per command. */
  captureLimit?: number;
  /** `none` (default): no network at all; `host`: the host's network. */
  network?: "none" | "host";
  /** Extra host paths shown inside (config `environment.binds`, and the work tree's history). */
  binds?: SandboxBind[];
  /** Most processes the sandbox may have at once (a cgroup's pids.max); null: no limit. */
  pidsLimit?: number | null;
  /** Most memory of the sandbox's processes, e.g. `8g` (a cgroup's memory limit); null: no limit. */
  memory?: string | null;
  /** The bubblewrap executable; default `bwrap`. */
  executable?: string;
}

/** Where the repository appears inside the sandbox by default, as in SWE-bench's images. */
export const SANDBOX_REPO = "/testbed";

/**
 * The sandbox's HOME: an empty folder in its private /tmp, the same whatever the host's HOME is, so
 * that /root and /home do not exist inside (a HOME at the host's path would make `/root` appear).
 */
export const SANDBOX_HOME = "/tmp/home";

const PASSED_HOST_VARS = ["PATH", "LANG", "LC_ALL", "TERM", "USER"];

/** Top-level host folders a build needs besides /usr and /etc (symbolic links on merged-/usr systems). */
const SYSTEM_DIRS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** `--symlink` for a top-level link (e.g. /bin -> usr/bin), `--ro-bind` for a real folder. */
function systemMounts(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (st.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  return args;
}

/** Reads `HOST[:SANDBOX][:ro|rw]` (docker's `-v` form; read-only unless `:rw`). */
export function parseBind(spec: string): SandboxBind | string {
  const parts = spec.split(":");
  let writable = false;
  const last = parts[parts.length - 1];
  if (parts.length > 1 && (last === "ro" || last === "rw")) {
    writable = last === "rw";
    parts.pop();
  }
  if (parts.length > 2 || parts.some((p) => p === "")) {
    return `environment.binds entry ${JSON.stringify(spec)} is not HOST[:SANDBOX][:ro|rw]`;
  }
  const [source, target = source] = parts;
  if (!source.startsWith("/") || !target.startsWith("/")) {
    return `environment.binds entry ${JSON.stringify(spec)}: both paths must be absolute`;
  }
  return { source: resolve(source), target: posix.normalize(target), writable };
}

/**
 * Runs commands in a bubblewrap sandbox (one per environment, where a helper shell starts each
 * command in its own process group; see launcher.ts) that shows only what a build needs:
 * - /usr, /bin, /lib*, /sbin read-only; /etc read-only without what the host keeps secret
 *   (host-secrets.ts: shadow files, ssh keys, anything not world-readable, sockets);
 * - the repository read-write at `mountAt` (/testbed), the same path whatever host folder holds it;
 * - a private /tmp, /var/tmp and $HOME ({@link SANDBOX_HOME}, inside that /tmp; host temp folders,
 *   removed by `close`), fresh /dev and /proc;
 * - `binds` (config `environment.binds`; the work tree's history store, read-only), each at its
 *   target path (bwrap makes the empty folders on the way to it).
 * Nothing else of the host exists inside: not /root, /home, /run, /var, /srv, /mnt, /opt, other
 * users' files nor any host socket (a host docker.sock would be host root). Every namespace is
 * unshared (the network too unless `network: "host"`), every capability dropped (root on the host
 * is an ordinary user inside: no mounts, no device nodes), and the sandbox dies with its parent.
 * With `pidsLimit` or `memory`, the sandbox runs in a control group that enforces them; when this
 * machine allows none, creating the environment fails and says so (they are never ignored).
 *
 * readFile/writeFile run `cat` inside a sandbox of the same view, so every path (symbolic links
 * included) resolves as the sandbox sees it: a link to a host file reaches at most the read-only
 * copy the sandbox shows, never the host file itself.
 */
export function createBwrapEnvironment(options: BwrapEnvironmentOptions): Environment {
  for (const b of options.binds ?? [])
    if (!existsSync(b.source))
      throw new Error(`environment.binds: ${b.source} does not exist on this machine`);
  const mountAt = posix.normalize(options.mountAt ?? SANDBOX_REPO);
  const cwd = options.cwd ?? mountAt;
  const captureLimit = options.captureLimit ?? 10_000_000;
  const cgroup = sandboxCgroup(options);
  const scratch = mkdtempSync(join(tmpdir(), "patchloop-bwrap-"));
  const baseEnv: Record<string, string> = {};
  for (const name of PASSED_HOST_VARS) {
    const value = process.env[name];
    if (value !== undefined) baseEnv[name] = value;
  }
  baseEnv.HOME = SANDBOX_HOME;
  Object.assign(baseEnv, TASK_DEFAULT_ENV, options.env);
  const spawned = new SpawnedGroups();
  let closed = false;
  const sandboxArgv = sandboxCommand(options, { mountAt, scratch, cgroup });

  // One sandbox for the environment's commands: a helper shell in it starts each one (see launcher.ts).
  const launcher = new Launcher(baseEnv, {
    wrap: (argv) => sandboxArgv("/", argv),
    kill: killInSandbox,
  });

  /**
   * Ends the helper's sandbox (and so every process in it: its pid namespace dies with its init)
   * and waits until they are gone; the next command starts a new sandbox with the same files.
   */
  async function replaceSandbox(): Promise<void> {
    const helper = launcher.helperPid;
    const inside = helper ? [helper, ...descendantsOf(helper).map((p) => p.pid)] : [];
    launcher.reset();
    await endProcesses({
      find: () => inside.filter((pid) => existsSync(`/proc/${pid}`)),
      signal: null,
      pauseMs: 20,
      withinMs: 5000,
    });
  }

  return {
    kind: "bwrap",
    cwd,
    exec: execCore({
      name: "bwrap",
      cwd,
      timeout: options.timeout,
      captureLimit,
      launcher,
      isClosed: () => closed,
      direct: (command, run) =>
        runCaptured(sandboxArgv(run.cwd, ["bash", "-c", command]), {
          ...run,
          cwd: "/",
          env: { ...baseEnv, ...run.env },
          track: spawned.track,
        }),
      // every process of the sandbox goes with its helper (also what left the command's process group)
      endAll: replaceSandbox,
    }),
    spawn(argv, opts = {}) {
      return spawnInteractive(sandboxArgv(opts.cwd ?? cwd, argv.length > 0 ? argv : ["bash"]), {
        cwd: "/",
        env: { ...baseEnv, ...opts.env },
        track: spawned.track,
        // Outer bwrap -> bwrap as PID 1 of the sandbox (session and group leader) -> the program.
        interrupt: (child) => {
          if (!child.pid) return;
          const init = childrenOf(child.pid).find((p) => p.comm === "bwrap");
          if (init && init.pgid > 1) killGroup(init.pgid, "SIGINT");
        },
      });
    },
    ...fileCalls(
      // a small program in a sandbox of the same view: every path resolves as the sandbox sees it
      (argv, input, maxStdout) => {
        const [exe, ...args] = sandboxArgv("/", argv);
        return runCli(exe, args, { input, timeout: 300, maxStdout });
      },
      {
        name: "bwrap",
        isClosed: () => closed,
        readProblem: readFailure,
        writeProblem: (stderr) => {
          const why = stderrTail(stderr, 2);
          return /Read-only file system/.test(why)
            ? `the sandbox is read-only there (writable: ${mountAt}, /tmp (HOME is ${SANDBOX_HOME}) and /var/tmp)`
            : why;
        },
      },
    ),
    async close() {
      if (closed) return;
      closed = true;
      launcher.close();
      spawned.killAll();
      await cgroup?.remove();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * The command's process group inside the helper's sandbox: the process whose pid one namespace
 * below ours is the one the helper reported (deeper namespaces, such as a bwrap the command
 * started, do not count).
 */
function killInSandbox(helper: ChildProcess, pid: number): void {
  const depth = namespacePids(process.pid).length;
  const match = helper.pid
    ? descendantsOf(helper.pid).find((p) => {
        const ids = namespacePids(p.pid);
        return ids.length === depth + 1 && ids[depth] === pid;
      })
    : undefined;
  killGroup(match?.pid, "SIGKILL");
}

/** The control group enforcing the sandbox's limits; none without limits; throws when limits cannot be enforced here. */
function sandboxCgroup(options: BwrapEnvironmentOptions): Cgroup | undefined {
  const memoryBytes = options.memory ? parseMemory(options.memory) : null;
  if (options.memory && memoryBytes === null) {
    throw new Error(`environment.memory ${JSON.stringify(options.memory)} is not a size such as 8g or 512m`);
  }
  const pidsLimit = options.pidsLimit ?? null;
  if (pidsLimit === null && memoryBytes === null) return undefined;
  const made = createCgroup("bwrap", { pidsLimit, memoryBytes });
  if (typeof made !== "string") return made;
  throw new Error(
    `environment bwrap cannot enforce ${limitsText(pidsLimit, options.memory ?? null)} here: ${made}. ` +
      "Run where cgroups are writable (root, or a delegated cgroup v2 subtree), or turn the limits off " +
      "with -c environment.pids_limit=null -c environment.memory=null (a fork bomb then reaches the host).",
  );
}

/** What the sandbox shows, besides the options: where the repository appears, the private folders' parent. */
interface SandboxView {
  mountAt: string;
  /** Host folder holding the sandbox's private /tmp (HOME inside it) and /var/tmp. */
  scratch: string;
  cgroup?: Cgroup;
}

/** The bwrap command line of one program in the sandbox, started in `innerCwd`. */
function sandboxCommand(
  options: BwrapEnvironmentOptions,
  view: SandboxView,
): (innerCwd: string, command: string[]) => string[] {
  const hostTmp = join(view.scratch, "tmp");
  const hostVarTmp = join(view.scratch, "var-tmp");
  for (const d of [hostTmp, hostVarTmp]) mkdirSync(d);
  // HOME is a folder of the private /tmp (no mount point of its own: `rm -rf /tmp/*` works as usual)
  mkdirSync(join(hostTmp, posix.relative("/tmp", SANDBOX_HOME)));
  const secrets = hostEtcSecrets();
  const mounts: string[] = [
    "--ro-bind",
    "/usr",
    "/usr",
    ...systemMounts(),
    "--ro-bind",
    "/etc",
    "/etc",
    ...secrets.files.flatMap((f) => ["--ro-bind", "/dev/null", f]),
    ...secrets.dirs.flatMap((d) => ["--tmpfs", d, "--remount-ro", d]),
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    hostTmp,
    "/tmp",
    "--bind",
    hostVarTmp,
    "/var/tmp",
    "--bind",
    resolve(options.repoDir),
    view.mountAt,
  ];
  for (const b of options.binds ?? []) mounts.push(b.writable ? "--bind" : "--ro-bind", b.source, b.target);
  const executable = options.executable ?? "bwrap";
  return (innerCwd, command) => {
    const argv = [
      executable,
      ...mounts,
      "--unshare-all",
      ...(options.network === "host" ? ["--share-net"] : []),
      "--die-with-parent",
      // setsid() in the sandbox: no terminal injection, and the sandbox's own process group is what
      // `interrupt` signals (its leader, bwrap's init, ignores SIGINT sent from outside).
      "--new-session",
      "--cap-drop",
      "ALL",
      "--chdir",
      innerCwd,
      "--",
      ...command,
    ];
    return view.cgroup ? view.cgroup.joinArgv(argv) : argv;
  };
}

function limitsText(pids: number | null, memory: string | null): string {
  return [pids !== null ? `pids_limit ${pids}` : "", memory ? `memory ${memory}` : ""]
    .filter(Boolean)
    .join(" and ");
}

/** `cat`'s complaint, in the words the other environments use. */
function readFailure(stderr: string): string {
  if (/No such file or directory/.test(stderr)) return "no such file";
  if (/Is a directory/.test(stderr)) return "it is a directory";
  if (/Permission denied/.test(stderr)) return "permission denied";
  return stderrTail(stderr, 2);
}
