import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-write.js";
import { pidAlive } from "../util/process-alive.js";
import type { OutcomeJob } from "./protocol.js";

/** The default spool: finished results a worker keeps until their coordinator acknowledged them. */
export function defaultSpoolRoot(): string {
  return join(
    process.env.XDG_STATE_HOME || join(tmpdir(), `patchloop-${process.getuid?.() ?? "user"}`),
    "worker-spool",
  );
}

/** A file name for a delivery id (which holds `.`, `%`, letters and digits). */
const fileOf = (delivery: string) => `${delivery.replace(/[^A-Za-z0-9._-]/g, "_")}.json`;

/**
 * The folder name of a queue's spools: the same for every URL of one Redis database (its password
 * and how it is written left out), another for any other host, port or database.
 */
export function queueSpoolName(queue: { host: string; port: number; db: number }): string {
  const where = `${queue.host.toLowerCase()}:${queue.port}/${queue.db}`;
  return `queue-${createHash("sha256").update(where).digest("hex").slice(0, 16)}`;
}

/**
 * `<root>/queue-<hash>/<host>-<pid>/<delivery>.json`: a worker's finished results, written before
 * they are sent and removed once the coordinator acknowledged them, so that neither Redis going
 * away nor the worker being killed loses one. A new worker on the same host and the same queue
 * adopts the folders of workers that are gone, and sends their results again (the coordinator
 * accepts one result per instance). A worker of another queue never sees them: results go back only
 * to the Redis their job came from.
 */
export class Spool {
  readonly dir: string;

  constructor(root: string, queue: { host: string; port: number; db: number }) {
    this.dir = join(root, queueSpoolName(queue), `${hostname()}-${process.pid}`);
  }

  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  async keep(job: OutcomeJob): Promise<void> {
    await writeFileAtomic(join(this.dir, fileOf(job.result.outcome.delivery)), JSON.stringify(job));
  }

  async forget(delivery: string): Promise<void> {
    await rm(join(this.dir, fileOf(delivery)), { force: true });
  }

  /** The results kept, by delivery. */
  async all(): Promise<OutcomeJob[]> {
    const out: OutcomeJob[] = [];
    for (const name of existsSync(this.dir) ? readdirSync(this.dir) : []) {
      if (!name.endsWith(".json")) continue;
      try {
        out.push(JSON.parse(await readFile(join(this.dir, name), "utf8")) as OutcomeJob);
      } catch {
        // a file being written, or broken: skipped
      }
    }
    return out;
  }

  /** Moves the results of gone workers of this host and queue into this spool; returns how many. */
  adopt(): number {
    const root = join(this.dir, "..");
    const prefix = `${hostname()}-`;
    let n = 0;
    for (const name of existsSync(root) ? readdirSync(root) : []) {
      const pid = Number(name.slice(prefix.length));
      if (!name.startsWith(prefix) || !Number.isInteger(pid) || pid === process.pid || pidAlive(pid))
        continue;
      const dir = join(root, name);
      for (const f of readdirSync(dir)) {
        if (!f.endsWith(".json")) continue;
        try {
          JSON.parse(readFileSync(join(dir, f), "utf8"));
          renameSync(join(dir, f), join(this.dir, f));
          n++;
        } catch {
          // half written by a killed worker: it was never sent, its job runs again
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
    return n;
  }
}
