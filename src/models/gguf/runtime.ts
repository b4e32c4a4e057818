import type {
  Llama,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaGrammarEvaluationState,
  LlamaModel,
} from "node-llama-cpp";
import { type LoadBounds, loadBoundsOf, watchLoad } from "./load-bounds.js";
import { RUNTIME_PACKAGE } from "./model-file.js";
import { SequencePool } from "./sequence-pool.js";

/** What one loaded GGUF model is run with (model.gguf, resolved). */
export interface RuntimeSettings {
  path: string;
  contextSize: number;
  threads: number | null;
  gpuLayers: number | "auto";
  sequences: number;
  /** Seconds the load may take (model.gguf.load_timeout; default 600). */
  loadTimeout?: number;
  /** Bytes of memory the process may hold while it loads (model.gguf.load_memory_gib; default 90% of the machine's). */
  loadMemory?: number;
}

/** A model loaded in this process: one context with `sequences` sequences, lent per query. */
export interface Runtime {
  llama: Llama;
  model: LlamaModel;
  pool: SequencePool<LlamaContextSequence>;
  /** Tokens of context of each sequence. */
  contextSize: number;
  /** The file's chat template, when it has one. */
  chatTemplate: string | null;
  /** The compiled grammar of a GBNF text (compiled once per text). */
  grammar(gbnf: string): Promise<LlamaGrammar>;
  /** A fresh state of `grammar` for one reply. */
  grammarState(grammar: LlamaGrammar): LlamaGrammarEvaluationState;
}

/** A load of this process, shared by the queries that wait for it. */
interface Loading {
  runtime: Promise<Runtime>;
  controller: AbortController;
  /** Queries waiting with a signal of their own; when all of them are aborted, so is the load. */
  waiting: number;
  /** A query waits without a signal: the load is never given up for lack of waiters. */
  pinned: boolean;
  settled: boolean;
}

/** Loaded runtimes of this process, by their settings: a model file is loaded once. */
const loaded = new Map<string, Loading>();

/**
 * The runtime of `settings`, loaded on first use and shared by every client of this process with
 * the same settings. Uses the prebuilt binaries that came with the package (never a download or a
 * build); `gpu_layers: 0` loads the CPU build only. The load has a time and a memory bound
 * (load-bounds.ts); a load that broke one is not tried again in this process, any other failure
 * is. `signal` ends this caller's wait at once; when every caller that waits has been aborted the
 * load itself is aborted (node-llama-cpp's load signal), so that an interrupted run can exit.
 * Rejects with one line naming the file and what failed (the caller turns it into a failed query).
 */
export function loadRuntime(settings: RuntimeSettings, signal?: AbortSignal): Promise<Runtime> {
  // the bounds are how it loads, not what: the same model and context are one runtime whatever they are
  const key = JSON.stringify([
    settings.path,
    settings.contextSize,
    settings.threads,
    settings.gpuLayers,
    settings.sequences,
  ]);
  let entry = loaded.get(key);
  if (!entry) {
    const controller = new AbortController();
    const made: Loading = {
      runtime: boundedLoad(settings, loadBoundsOf(settings), controller),
      controller,
      waiting: 0,
      pinned: false,
      settled: false,
    };
    made.runtime.then(
      () => {
        made.settled = true;
      },
      () => {
        made.settled = true;
        // a load that broke its bounds stays failed; after any other failure the next query tries again
        if (!(controller.signal.reason instanceof LoadBoundError) && loaded.get(key) === made)
          loaded.delete(key);
      },
    );
    loaded.set(key, made);
    entry = made;
  }
  if (!signal) {
    entry.pinned = true;
    return entry.runtime;
  }
  return waitFor(key, entry, signal);
}

/** The runtime of `entry`, or a rejection as soon as `signal` aborts (then the load too, when no one else waits). */
function waitFor(key: string, entry: Loading, signal: AbortSignal): Promise<Runtime> {
  if (entry.settled) return entry.runtime;
  return new Promise<Runtime>((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error(`the wait for ${pathOf(key)} was aborted`));
      return;
    }
    entry.waiting++;
    const onAbort = () => {
      entry.waiting--;
      if (entry.waiting === 0 && !entry.pinned && !entry.settled) {
        entry.controller.abort(new Error("every query that waited for the model was aborted"));
        if (loaded.get(key) === entry) loaded.delete(key);
      }
      reject(new Error(`the wait for ${pathOf(key)} was aborted`));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    entry.runtime.then(
      (rt) => {
        signal.removeEventListener("abort", onAbort);
        entry.waiting--;
        resolve(rt);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        entry.waiting--;
        reject(e);
      },
    );
  });
}

const pathOf = (key: string) => (JSON.parse(key) as [string])[0];

/** Frees every loaded runtime (tests, the bench; a CLI process just exits). */
export async function disposeRuntimes(): Promise<void> {
  const all = [...loaded.values()];
  loaded.clear();
  for (const r of all) {
    r.controller.abort(new Error("the runtimes were disposed"));
    const rt = await r.runtime.catch(() => null);
    if (rt) await rt.llama.dispose();
  }
}

/** A load stopped by its time or memory bound (the message says which). */
class LoadBoundError extends Error {}

/**
 * `load` under `bounds`: a timer and a memory watch abort it (node-llama-cpp stops loading at its
 * next step) and the caller gets the bound's message at once, whatever the loader is doing.
 */
async function boundedLoad(
  s: RuntimeSettings,
  bounds: LoadBounds,
  controller: AbortController,
): Promise<Runtime> {
  const stop = watchLoad(s.path, bounds, (message) => controller.abort(new LoadBoundError(message)));
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(controller.signal.reason);
    if (controller.signal.aborted) fail();
    else controller.signal.addEventListener("abort", fail, { once: true });
  });
  aborted.catch(() => {});
  const loading = load(s, controller.signal);
  // a runtime that arrives after the load was given up is freed, so that nothing keeps the process alive
  loading.then(
    (rt) => {
      if (controller.signal.aborted) void rt.llama.dispose();
    },
    () => {},
  );
  try {
    return await Promise.race([loading, aborted]);
  } finally {
    stop();
  }
}

async function load(s: RuntimeSettings, signal: AbortSignal): Promise<Runtime> {
  let lib: typeof import("node-llama-cpp");
  try {
    lib = await import("node-llama-cpp");
  } catch (e) {
    throw new Error(
      `the embedded GGUF runtime could not load node-llama-cpp (${(e as Error).message}); install it with \`npm install --save-exact ${RUNTIME_PACKAGE}\``,
    );
  }
  const llama = await lib.getLlama({
    gpu: s.gpuLayers === 0 ? false : "auto",
    build: "never",
    usePrebuiltBinaries: true,
    progressLogs: false,
    logLevel: lib.LlamaLogLevel.error,
  });
  try {
    if (signal.aborted) throw signal.reason;
    const model = await llama.loadModel({ modelPath: s.path, gpuLayers: s.gpuLayers, loadSignal: signal });
    const context = await model.createContext({
      contextSize: Math.min(s.contextSize, model.trainContextSize),
      sequences: s.sequences,
      createSignal: signal,
      ...(s.threads !== null ? { threads: s.threads } : {}),
    });
    const sequences = Array.from({ length: s.sequences }, () => context.getSequence());
    const grammars = new Map<string, Promise<LlamaGrammar>>();
    const template = model.fileInfo.metadata.tokenizer?.chat_template;
    return {
      llama,
      model,
      pool: new SequencePool(sequences),
      contextSize: context.contextSize,
      chatTemplate: typeof template === "string" && template.trim() !== "" ? template : null,
      grammar(gbnf) {
        let g = grammars.get(gbnf);
        if (!g) {
          g = llama.createGrammar({ grammar: gbnf });
          grammars.set(gbnf, g);
        }
        return g;
      },
      grammarState: (grammar) => new lib.LlamaGrammarEvaluationState({ model, grammar }),
    };
  } catch (e) {
    await llama.dispose();
    if (signal.aborted) throw signal.reason;
    const why = String((e as Error)?.message ?? e)
      .replace(/\s+/g, " ")
      .trim();
    throw new Error(`${s.path}: node-llama-cpp could not load the model: ${why}`);
  }
}
