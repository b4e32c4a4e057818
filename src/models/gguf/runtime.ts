import type {
  Llama,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaGrammarEvaluationState,
  LlamaModel,
} from "node-llama-cpp";
import { RUNTIME_PACKAGE } from "./model-file.js";
import { SequencePool } from "./sequence-pool.js";

/** What one loaded GGUF model is run with (model.gguf, resolved). */
export interface RuntimeSettings {
  path: string;
  contextSize: number;
  threads: number | null;
  gpuLayers: number | "auto";
  sequences: number;
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

/** Loaded runtimes of this process, by their settings: a model file is loaded once. */
const loaded = new Map<string, Promise<Runtime>>();

/**
 * The runtime of `settings`, loaded on first use and shared by every client of this process with
 * the same settings. Uses the prebuilt binaries that came with the package (never a download or a
 * build); `gpu_layers: 0` loads the CPU build only. Rejects with what failed (the caller turns it
 * into a failed query).
 */
export function loadRuntime(settings: RuntimeSettings): Promise<Runtime> {
  const key = JSON.stringify(settings);
  let runtime = loaded.get(key);
  if (!runtime) {
    runtime = load(settings);
    loaded.set(key, runtime);
    runtime.catch(() => loaded.delete(key));
  }
  return runtime;
}

/** Frees every loaded runtime (tests, the bench; a CLI process just exits). */
export async function disposeRuntimes(): Promise<void> {
  const all = [...loaded.values()];
  loaded.clear();
  for (const r of all) {
    const rt = await r.catch(() => null);
    if (rt) await rt.llama.dispose();
  }
}

async function load(s: RuntimeSettings): Promise<Runtime> {
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
    const model = await llama.loadModel({ modelPath: s.path, gpuLayers: s.gpuLayers });
    const context = await model.createContext({
      contextSize: Math.min(s.contextSize, model.trainContextSize),
      sequences: s.sequences,
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
    throw new Error(`node-llama-cpp could not load the GGUF model ${s.path}: ${(e as Error).message}`);
  }
}
