import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { withInfoFields } from "../agent/trajectory-schema.js";
import { type InstanceSink, unitKey, type WorkerInfo, type WorkUnit } from "../batch/types.js";

/** The trajectory of a finished instance with the worker that ran it recorded (`info.worker`). */
function withWorker(text: string, info: WorkerInfo): string {
  return withInfoFields(text, { worker: info }) ?? text;
}

/**
 * Where a `patchloop worker` runs the instances of one run: the local dispatcher writes each
 * instance's folder here, as it writes the run folder in one process; the worker sends the files
 * to the coordinator and removes them. Its lines go to the worker's output, tagged with the run.
 */
export class ScratchFolder implements InstanceSink {
  private constructor(
    readonly dir: string,
    private readonly run: string,
    private readonly say: (line: string) => void,
  ) {}

  static async create(dir: string, run: string, say: (line: string) => void): Promise<ScratchFolder> {
    await mkdir(dir, { recursive: true });
    return new ScratchFolder(dir, run, say);
  }

  log(line: string): void {
    this.say(`run ${this.run}: ${line}`);
  }

  warn(message: string): void {
    this.say(`run ${this.run}: WARNING: ${message}`);
  }

  /** An instance starts here: what an earlier attempt left of its folder goes. */
  async retire(unit: WorkUnit): Promise<void> {
    await rm(join(this.dir, unitKey(unit.row.instance_id, unit.attempt)), { recursive: true, force: true });
  }

  /**
   * The files of a unit's folder (`key`: `<id>`, or `<id>/attempt-<k>`) by name, its trajectory
   * naming the worker that ran it.
   */
  async files(id: string, key: string, worker: WorkerInfo): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    const folder = join(this.dir, key);
    for (const name of existsSync(folder) ? await readdir(folder) : []) {
      const text = await readFile(join(folder, name), "utf8");
      files[name] = name === `${id}.traj.json` ? withWorker(text, worker) : text;
    }
    return files;
  }

  /** Removes the folder (its runs ended on this worker). */
  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
