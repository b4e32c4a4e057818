import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { childEnv, killGroup } from "./host-process.js";
import { OutputCapture } from "./output-capture.js";
import type { ExecResult } from "./types.js";

/**
 * The launcher's loop. It reads requests (fields, each as its length in bytes in 8 decimal digits
 * then its bytes: nonce, cwd, variable count, NAME=value entries, command; see {@link encodeRequest}),
 * starts each command as `bash -c` in a subshell of its own process group
 * (`set -m`), reports the pid on fd 2 (as `nonce pid`), waits for it (plain `wait`: bash 5.2's `wait -f` can spin
 * forever on a child it has already reaped), kills what is left of the group and writes
 * NUL + nonce + ":" + exit status + newline after the output on fd 1, so everything the group
 * wrote comes before that marker.
 *
 * On the host the helper runs under `setpriv --pdeathsig TERM` (see {@link underParentDeath}): when
 * this process dies, even by SIGKILL, the helper gets SIGTERM, and its trap kills the running
 * command's process group and exits (HUP and INT likewise). `$!` is the last command started and
 * `reaped` the last one waited for, so the trap kills a group only while its command runs (also
 * in the instant between the fork and `pid=$!`). The subshell resets the caught signals and
 * `exec bash` starts the command with their default actions: the trap never reaches a command.
 *
 * A field is read with `read -N`, which takes its bytes from the pipe in one system call; `read -d`
 * would take them one byte per call, as bash must not read past a delimiter on a pipe (a command of
 * a few hundred bytes cost that many calls). The reads run with LC_ALL=C so that -N counts bytes,
 * not characters; the command gets the helper's LC_ALL back (or none, as it came).
 */
const LOOP = String.raw`
set -m
shlvl=$1
reaped=
stopped() {
  if [[ -n $! && $! != "$reaped" ]]; then kill -KILL -- "-$!" 2>/dev/null; fi
  exit "$1"
}
trap 'stopped 129' HUP
trap 'stopped 130' INT
trap 'stopped 143' TERM
if [[ -n ${"$"}{OLDPWD+set} ]]; then oldpwd=(OLDPWD="$OLDPWD"); else oldpwd=(); fi
if [[ -n ${"$"}{LC_ALL+set} ]]; then lcall=(LC_ALL="$LC_ALL"); else lcall=(); fi
LC_ALL=C
field() {
  IFS= read -r -N 8 len && [[ $len == [0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9] ]] || return 1
  len=$((10#$len))
  REPLY=
  (( len == 0 )) || IFS= read -r -N "$len" REPLY
}
while field && nonce=$REPLY && field && dir=$REPLY && field && count=$REPLY; do
  vars=()
  while (( count > 0 )); do field || exit 0; vars+=("$REPLY"); count=$((count - 1)); done
  field || exit 0
  cmd=$REPLY
  (
    if (( ${"$"}{#lcall[@]} )); then export "${"$"}{lcall[@]}"; else unset LC_ALL; fi
    [[ -d $dir ]] || { printf 'failed to start bash: working directory %s does not exist (ENOENT)\n' "$dir"; exit 127; }
    CDPATH= cd -P -- "$dir" 2>/dev/null || { printf 'failed to start bash: cannot enter the working directory %s\n' "$dir"; exit 127; }
    if (( ${"$"}{#oldpwd[@]} )); then export "${"$"}{oldpwd[@]}"; else unset OLDPWD; fi
    export SHLVL=$shlvl
    for kv in "${"$"}{vars[@]}"; do export -- "$kv"; done
    exec bash -c "$cmd"
  ) </dev/null 2>&1 &
  pid=$!
  printf '%s %s\n' "$nonce" "$pid" >&2
  wait "$pid"
  rc=$?
  kill -KILL -- "-$pid" 2>/dev/null
  reaped=$pid
  printf '\0%s:%s\n' "$nonce" "$rc"
done
`;

/** `setpriv`'s absolute path on this process's PATH, or null; undefined until looked up. */
let setprivPath: string | null | undefined;

/**
 * `argv` run under `setpriv --pdeathsig TERM`, so the helper gets SIGTERM when this process dies
 * (the kernel sends it when the thread that spawned it exits: Node spawns from its main thread).
 * setpriv (util-linux) execs the program in place, so the helper keeps the pid Node sees. Where
 * setpriv is not on PATH (looked up once per process, without starting anything) `argv` runs as
 * it is, and a command running when this process is killed outlives it. A setpriv without
 * `--pdeathsig` (util-linux before 2.33, busybox) is found by running it once with `true`.
 */
function underParentDeath(argv: string[]): string[] {
  if (setprivPath === undefined) {
    setprivPath = null;
    for (const dir of (process.env.PATH ?? "").split(delimiter)) {
      if (!isAbsolute(dir)) continue;
      const candidate = join(dir, "setpriv");
      try {
        accessSync(candidate, constants.X_OK);
      } catch {
        continue; // not here
      }
      const probe = spawnSync(candidate, ["--pdeathsig", "TERM", "--", "true"], {
        stdio: "ignore",
        timeout: 10_000,
      });
      if (probe.status === 0) setprivPath = candidate;
      break;
    }
  }
  return setprivPath ? [setprivPath, "--pdeathsig", "TERM", "--", ...argv] : argv;
}

/** One request as the launcher takes it. */
export interface LaunchRequest {
  command: string;
  cwd: string;
  /** Variables added for this command (on top of the launcher's own environment). */
  env: Record<string, string>;
  timeout?: number;
  signal?: AbortSignal;
  /** Bytes of output kept (head and tail). */
  captureLimit: number;
}

interface Running {
  nonce: string;
  marker: Buffer;
  capture: OutputCapture;
  pending: Buffer;
  pid?: number;
  stopped: boolean;
  finish: (returncode: number) => void;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The largest field the helper's 8-digit length can announce. */
const MAX_FIELD = 99_999_999;

/**
 * A request as the helper reads it: each field as its byte length in 8 decimal digits, then its
 * bytes; null when a field cannot be carried (a NUL byte, which bash drops, or a length past 8 digits).
 */
export function encodeRequest(fields: string[]): Buffer | null {
  const parts: Buffer[] = [];
  for (const f of fields) {
    const bytes = Buffer.from(f, "utf8");
    if (bytes.length > MAX_FIELD || bytes.includes(0)) return null;
    parts.push(Buffer.from(String(bytes.length).padStart(8, "0"), "latin1"), bytes);
  }
  return Buffer.concat(parts);
}

/** How long a stopped command may take to end before its helper is dropped. */
const STOP_GRACE_MS = 5000;

/** Where the helper runs, when not directly on the host. */
export interface LauncherPlacement {
  /** Wraps the helper's command line (bwrap: in the sandbox). */
  wrap: (argv: string[]) => string[];
  /** The environment of the spawned program (default: the commands' environment). */
  spawnEnv?: Record<string, string>;
  /** Kills the process group of a command, given the pid the helper reported (in its own namespace). */
  kill: (helper: ChildProcess, pid: number) => void;
}

/**
 * Starts the commands of one environment from a long-lived helper shell instead of from Node.
 * Node forks its whole (large) process for every spawn, on its only thread: with dozens of tasks in
 * one batch that costs more than the commands. The helper forks a small shell instead and Node only
 * writes a request to a pipe. It runs one command at a time; `run` returns null when it cannot take
 * a request (busy, stdin wanted, a NUL byte or an odd variable name): the caller spawns directly.
 */
export class Launcher {
  private child: ChildProcess | null = null;
  private current: Running | null = null;
  private pids = "";
  private closed = false;

  constructor(
    /** The environment of every command (per-request variables are added on top). */
    private readonly env: Record<string, string>,
    private readonly placement?: LauncherPlacement,
    /**
     * On the host: called with the helper's pid right after it starts, before it gets a request
     * (local: moves it into the environment's cgroup; it forks nothing before its first request).
     */
    private readonly onHostSpawn?: (pid: number) => void,
  ) {}

  /** Kills the process group of the running command (as the host sees it). */
  private killCurrent(): void {
    const cur = this.current;
    if (!cur?.pid) return;
    if (!this.placement) killGroup(cur.pid, "SIGKILL");
    else if (this.child) this.placement.kill(this.child, cur.pid);
  }

  /** Whether the helper keeps this process alive: only while a command runs (an environment never
   * closed must not hold the process open). */
  private setRef(on: boolean): void {
    const c = this.child;
    if (!c) return;
    for (const h of [c, c.stdin, c.stdout, c.stderr] as Array<{
      ref?(): void;
      unref?(): void;
    } | null>) {
      if (on) h?.ref?.();
      else h?.unref?.();
    }
  }

  /** Runs the request, or returns null when the caller should spawn the command itself. */
  run(req: LaunchRequest): Promise<ExecResult> | null {
    if (this.closed || this.current || Object.keys(req.env).some((k) => !NAME.test(k))) return null;
    const vars = Object.entries(req.env).map(([k, v]) => `${k}=${v}`);
    const nonce = randomBytes(12).toString("hex");
    const request = encodeRequest([nonce, req.cwd, String(vars.length), ...vars, req.command]);
    if (!request) return null;
    const helper = this.helper();
    if (!helper?.stdin?.writable) return null;
    return new Promise((resolve) => {
      let stoppedBy: "timeout" | "abort" | undefined;
      let giveUp: NodeJS.Timeout | undefined;
      const stop = (why: "timeout" | "abort") => {
        if (!this.current || this.current.stopped) return;
        stoppedBy = why;
        this.current.stopped = true;
        this.killCurrent();
        // Should the kill not reach the command, the helper is dropped rather than waited for.
        giveUp = setTimeout(() => this.dropHelper(), STOP_GRACE_MS);
        giveUp.unref();
      };
      const onAbort = () => stop("abort");
      const timer =
        req.timeout && req.timeout > 0 ? setTimeout(() => stop("timeout"), req.timeout * 1000) : undefined;
      const capture = new OutputCapture(req.captureLimit);
      this.current = {
        nonce,
        marker: Buffer.from(`\0${nonce}:`),
        capture,
        pending: Buffer.alloc(0),
        stopped: false,
        finish: (code) => {
          clearTimeout(timer);
          clearTimeout(giveUp);
          req.signal?.removeEventListener("abort", onAbort);
          this.current = null;
          this.setRef(false);
          resolve({
            output: capture.text(),
            returncode: stoppedBy ? -1 : code,
            timedOut: stoppedBy === "timeout",
            ...(stoppedBy === "abort" ? { interrupted: true } : {}),
            truncated: capture.truncated,
          });
        },
      };
      req.signal?.addEventListener("abort", onAbort, { once: true });
      this.setRef(true);
      helper.stdin?.write(request);
      if (req.signal?.aborted) onAbort();
    });
  }

  /** Kills the helper (a new one starts with the next command); its running command ends with it. */
  private dropHelper(): void {
    if (this.child) killGroup(this.child.pid, "SIGKILL");
  }

  /** The pid of the running helper (as this process sees it), if one runs. */
  get helperPid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Kills the helper and so everything it started that is still alive (bwrap: the whole sandbox;
   * the next command gets a new helper). Environments call it after a command timed out.
   */
  reset(): void {
    const old = this.child;
    if (this.current || !old) return;
    // Forgotten at once: the next command must not reach the dying helper, nor read its output.
    this.child = null;
    killGroup(old.pid, "SIGKILL");
  }

  /** Kills the running command and the helper. Safe to call twice. */
  close(): void {
    this.closed = true;
    this.killCurrent();
    this.child?.stdin?.end();
    this.dropHelper();
  }

  private helper(): ChildProcess | null {
    if (this.child) return this.child;
    const env = childEnv(this.env);
    let child: ChildProcess;
    let program = "bash";
    try {
      // "/" rather than the task's folder: a folder that does not exist is then reported per command.
      const argv = ["bash", "-c", LOOP, "patchloop-launcher", env.SHLVL];
      const [first, ...args] = this.placement ? this.placement.wrap(argv) : underParentDeath(argv);
      program = first;
      child = spawn(program, args, {
        cwd: "/",
        env: this.placement?.spawnEnv ?? env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch {
      return null;
    }
    if (!this.placement && child.pid && this.onHostSpawn) {
      try {
        this.onHostSpawn(child.pid);
      } catch {
        killGroup(child.pid, "SIGKILL");
        return null;
      }
    }
    this.child = child;
    // The command whose output is still read after its helper ended (see `gone`).
    let draining: Running | null = null;
    child.stdin?.on("error", () => {});
    child.stdout?.on("data", (c: Buffer) => {
      if (this.child === child || (draining !== null && this.current === draining)) this.output(c);
    });
    child.stderr?.on("data", (c: Buffer) => {
      if (this.child === child) this.stderr(c);
    });
    const gone = (failure?: string, how?: string) => {
      if (this.child !== child) return;
      this.child = null;
      const cur = this.current;
      if (!cur) return;
      if (!this.placement) killGroup(cur.pid, "SIGKILL");
      const end = () => {
        if (this.current !== cur) return;
        cur.capture.push(cur.pending);
        if (failure) cur.capture.push(Buffer.from(failure));
        // A stopped command whose helper was dropped has its result already (timed out / stopped).
        else if (!cur.stopped)
          cur.capture.push(
            Buffer.from(
              `\n[patchloop: the helper process that starts commands ended unexpectedly${how ? ` (${how})` : ""}, ` +
                "so this command's result is unknown; the next command starts a new one]",
            ),
          );
        cur.finish(failure ? 127 : -1);
      };
      // What the helper wrote before it ended may still be on its way: wait for the end of its output,
      // and keep giving it to this command until then (the exit event can come before the data).
      if (failure || child.stdout?.readableEnded) end();
      else {
        draining = cur;
        child.stdout?.once("end", end);
        setTimeout(end, 200).unref();
      }
    };
    // What the helper's bash printed is not shown: it can hold the helper's own script text.
    child.on("exit", (code, signal) =>
      gone(undefined, signal ? `killed by ${signal}` : `exit status ${code}`),
    );
    child.on("error", (err) => gone(`failed to start ${program}: ${err.message}`));
    return child;
  }

  /** The helper's own stderr: `nonce pid` lines; anything else bash itself says is dropped. */
  private stderr(chunk: Buffer): void {
    this.pids += chunk.toString("utf8");
    let nl = this.pids.indexOf("\n");
    while (nl >= 0) {
      const line = this.pids.slice(0, nl);
      this.pids = this.pids.slice(nl + 1);
      const m = /^([0-9a-f]{24}) (\d+)$/.exec(line);
      // A fast command's end marker can arrive before its pid line: match the pid to its request.
      if (m && this.current && this.current.nonce === m[1]) {
        this.current.pid = Number(m[2]);
        if (this.current.stopped) this.killCurrent();
      }
      nl = this.pids.indexOf("\n");
    }
    if (this.pids.length > 4096) this.pids = this.pids.slice(-4096);
  }

  /** Output of the running command up to its end marker; anything outside a command is dropped. */
  private output(chunk: Buffer): void {
    const cur = this.current;
    if (!cur) return;
    const buf = cur.pending.length > 0 ? Buffer.concat([cur.pending, chunk]) : chunk;
    const at = buf.indexOf(cur.marker);
    if (at < 0) {
      // The end of the buffer may be the start of a marker split across reads.
      const keep = Math.min(buf.length, cur.marker.length - 1);
      cur.capture.push(buf.subarray(0, buf.length - keep));
      cur.pending = Buffer.from(buf.subarray(buf.length - keep));
      return;
    }
    if (at > 0) cur.capture.push(buf.subarray(0, at));
    const rest = buf.subarray(at + cur.marker.length);
    const nl = rest.indexOf(10);
    if (nl < 0) {
      cur.pending = Buffer.from(buf.subarray(at));
      return;
    }
    cur.pending = Buffer.alloc(0);
    cur.finish(Number(rest.subarray(0, nl).toString("latin1")));
  }
}
