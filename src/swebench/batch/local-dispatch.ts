import { setMaxListeners } from "node:events";
import { rm } from "node:fs/promises";
import type { Config } from "../../config/schema.js";
import { createModel } from "../../models/create-model.js";
import { createReplicaPool, type ReplicaPool } from "../../models/replica-pool.js";
import type { Model } from "../../models/types.js";
import type { SwebenchInstance } from "../types.js";
import { openInstanceEnvironment } from "./instance-environment.js";
import type { RunFolder } from "./run-folder.js";
import { runInstance } from "./run-instance.js";
import type { Dispatcher, EnvironmentOpener } from "./types.js";
import { makeWorkspaceRoot, sweepStaleRoots } from "./workspace-root.js";

/** What running instances in this process needs. */
export interface LocalDispatchOptions {
  config: Config;
  /** Instances run at once. */
  workers: number;
  reposDir?: string;
  /** The model of one instance (default: `createModel(config.model)`, sharing one replica pool). */
  modelFor?: (row: SwebenchInstance) => Model;
  /** Opens the environment of one instance (default: `openInstanceEnvironment`). */
  openEnvironment?: EnvironmentOpener;
  /** Label of this run's containers (`patchloop.run`). */
  runId: string;
  modelName: string;
}

/** The default environment opener and what it leaves to remove at the end. */
async function defaultOpener(
  o: LocalDispatchOptions,
  warn: (m: string) => void,
): Promise<{ open: EnvironmentOpener; done: () => Promise<void> }> {
  const kind = o.config.environment.environment_class;
  const needsTree = kind === "local" || kind === "bwrap";
  if (needsTree) await sweepStaleRoots();
  const workRoot = needsTree ? await makeWorkspaceRoot() : "";
  return {
    open: (row) =>
      openInstanceEnvironment(o.config, row, { reposDir: o.reposDir, workRoot, runId: o.runId, warn }),
    done: async () => {
      if (workRoot) await rm(workRoot, { recursive: true, force: true });
    },
  };
}

/**
 * Runs instances in this process, `workers` at a time (async): the agent writes each trajectory
 * straight into the run folder. One signal per instance, aborted by `interrupt`: listeners that
 * model clients leave on a signal (one per call) then go away with the instance instead of piling
 * up on a shared one. Every instance's model shares one replica pool (`model.base_url` as a list).
 */
export async function createLocalDispatcher(o: LocalDispatchOptions, folder: RunFolder): Promise<Dispatcher> {
  const warn = (m: string) => folder.warn(m);
  const opener = o.openEnvironment
    ? { open: o.openEnvironment, done: async () => {} }
    : await defaultOpener(o, warn);
  const pool: ReplicaPool | null = o.modelFor ? null : createReplicaPool(o.config.model);
  const modelFor =
    o.modelFor ??
    (() => createModel(o.config.model, { warn, parallel: o.workers, ...(pool ? { replicas: pool } : {}) }));
  const running = new Set<AbortController>();
  let interrupted = false;
  return {
    slots: Math.max(1, Math.floor(o.workers)),
    async run(row, hooks) {
      const id = row.instance_id;
      folder.log(`start ${id}`);
      hooks.onStart(id);
      // Its trajectory is about to be replaced: what its earlier attempt spent moves to run.json.
      await folder.retire(id);
      const own = new AbortController();
      setMaxListeners(0, own.signal);
      if (interrupted) own.abort();
      running.add(own);
      try {
        const outcome = await runInstance(row, {
          config: o.config,
          outputDir: folder.dir,
          modelFor,
          openEnvironment: opener.open,
          modelName: o.modelName,
          signal: own.signal,
          log: (line) => folder.log(line),
          warn: (m) => folder.warn(m),
          onAgentEvent: (event) => hooks.onAgentEvent(id, event),
        });
        return { outcome };
      } finally {
        running.delete(own);
      }
    },
    settle: async () => {},
    stopStarting: async () => {},
    interrupt() {
      interrupted = true;
      for (const c of running) c.abort();
    },
    replicaCounts: () => pool?.counts() ?? null,
    close: () => opener.done().catch((err: Error) => warn(`could not remove the work trees: ${err.message}`)),
  };
}
