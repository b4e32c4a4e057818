import { setMaxListeners } from "node:events";
import { rm } from "node:fs/promises";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { makeWorkspaceRoot, sweepStaleRoots } from "../instance/workspace-root.js";
import { type RepoAnalyses, repoAnalyses } from "../localize/repo-analyses.js";
import { createModel } from "../models/factory/create-model.js";
import { createReplicaPool, type ReplicaCounts, type ReplicaPool } from "../models/replica-pool.js";
import type { Model } from "../models/types.js";
import { openInstanceEnvironment } from "./instance-environment.js";
import { runInstance } from "./run-instance.js";
import {
  type Dispatcher,
  type EnvironmentOpener,
  type InstanceResult,
  type InstanceSink,
  unitKey,
  type WorkUnit,
} from "./types.js";

/** What running instances in this process needs. */
export interface LocalDispatchOptions {
  config: Config;
  /** Instances run at once. */
  workers: number;
  reposDir?: string;
  /** The model of one instance or attempt (default: `createModel` of its config's `model`, sharing one replica pool). */
  modelFor?: (row: SwebenchInstance, attempt?: number) => Model;
  /** Opens the environment of one instance (default: `openInstanceEnvironment`). */
  openEnvironment?: EnvironmentOpener;
  /**
   * The replicas of `model.base_url` (a list), shared with other dispatchers of this process (a
   * worker's runs); default: a pool of this dispatcher's own. Not used with `modelFor`.
   */
  replicas?: ReplicaPool | null;
  /** Label of this run's containers (`patchloop.run`). */
  runId: string;
  modelName: string;
  /**
   * The units this dispatch is to run (a batch's pending instances or attempts): each is retained in the
   * localization's analyses at the start and released when it ends, however it ends, or at
   * `close` when it never ran, so that a repository's analysis goes once no pending instance
   * needs it. None (a worker taking jobs one at a time): nothing is retained.
   */
  pending?: readonly WorkUnit[];
  /** The analyses to count in (default: the process's, `repoAnalyses()`). */
  analyses?: RepoAnalyses;
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
    open: (row, _signal, config) =>
      openInstanceEnvironment(config, row, { reposDir: o.reposDir, workRoot, runId: o.runId, warn }),
    done: async () => {
      if (workRoot) await rm(workRoot, { recursive: true, force: true });
    },
  };
}

/** Whether an attempt's config talks to the same model as the run's (its variant left `model` alone). */
function sameModel(a: Config, b: Config): boolean {
  return JSON.stringify(a.model) === JSON.stringify(b.model);
}

/** Adds one request's outcome to an instance's counts per replica. */
function countInto(counts: Record<string, ReplicaCounts>) {
  return (url: string, outcome: "ok" | "failed") => {
    const c = counts[url] ?? { requests: 0, failures: 0 };
    c.requests++;
    if (outcome === "failed") c.failures++;
    counts[url] = c;
  };
}

/**
 * Runs instances in this process, `workers` at a time (async): the agent writes each trajectory
 * straight into the sink's folder (the run folder, or a worker's scratch folder). One signal per
 * instance, aborted by `interrupt` or by the caller's signal: listeners that model clients leave on
 * a signal (one per call) then go away with the instance instead of piling up on a shared one.
 * Every instance's model shares one replica pool (`model.base_url` as a list); each result counts
 * the requests its instance sent to each replica.
 */
export async function createLocalDispatcher(
  o: LocalDispatchOptions,
  sink: InstanceSink,
): Promise<Dispatcher> {
  const warn = (m: string) => sink.warn(m);
  const opener = o.openEnvironment
    ? { open: o.openEnvironment, done: async () => {} }
    : await defaultOpener(o, warn);
  const pool = o.modelFor ? null : o.replicas !== undefined ? o.replicas : createReplicaPool(o.config.model);
  const running = new Set<AbortController>();
  const analyses = o.analyses ?? repoAnalyses();
  // instance id -> repository, for the rows retained and not yet released
  const retained = new Map<string, string>();
  for (const { row, attempt } of o.pending ?? []) {
    const key = unitKey(row.instance_id, attempt);
    if (retained.has(key)) continue;
    retained.set(key, row.repo);
    analyses.retain(row.repo);
  }
  const release = (id: string) => {
    const repo = retained.get(id);
    if (repo === undefined) return;
    retained.delete(id);
    analyses.release(repo);
  };
  let interrupted = false;
  return {
    slots: Math.max(1, Math.floor(o.workers)),
    async run(unit, hooks, signal) {
      const { row, attempt } = unit;
      const key = unitKey(row.instance_id, attempt);
      sink.log(`start ${key}`);
      hooks.onStart();
      // Its folder is about to be written anew (the run folder: what its earlier run spent moves to run.json).
      await sink.retire(unit);
      const own = new AbortController();
      setMaxListeners(0, own.signal);
      const stop = () => own.abort();
      if (interrupted || signal?.aborted) stop();
      signal?.addEventListener("abort", stop, { once: true });
      running.add(own);
      const counts: Record<string, ReplicaCounts> = {};
      // An attempt whose variant changes the model talks to its own servers, outside the run's pool.
      const modelFor = o.modelFor
        ? (r: SwebenchInstance, _config: Config, k?: number) =>
            (o.modelFor as NonNullable<typeof o.modelFor>)(r, k)
        : (_r: SwebenchInstance, config: Config) => {
            const shared = pool && sameModel(config, o.config);
            return createModel(config.model, {
              warn,
              parallel: o.workers,
              ...(shared ? { replicas: pool, onReplica: countInto(counts) } : {}),
            });
          };
      try {
        const outcome = await runInstance(unit, {
          config: o.config,
          outputDir: sink.dir,
          modelFor,
          openEnvironment: opener.open,
          modelName: o.modelName,
          signal: own.signal,
          log: (line) => sink.log(line),
          warn,
          onAgentEvent: (event) => hooks.onAgentEvent(event),
        });
        const result: InstanceResult = { outcome };
        return pool ? { ...result, replicas: counts } : result;
      } finally {
        signal?.removeEventListener("abort", stop);
        running.delete(own);
        release(key);
      }
    },
    settle: async () => {},
    stopStarting: async () => {},
    interrupt() {
      interrupted = true;
      for (const c of running) c.abort();
    },
    close: () => {
      for (const id of [...retained.keys()]) release(id);
      return opener.done().catch((err: Error) => warn(`could not remove the work trees: ${err.message}`));
    },
  };
}
