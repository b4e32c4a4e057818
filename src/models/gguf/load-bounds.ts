import { readFileSync } from "node:fs";
import { totalmem } from "node:os";

/** What one load of a GGUF model may take. */
export interface LoadBounds {
  /** Seconds (model.gguf.load_timeout). */
  seconds: number;
  /** Bytes of memory the process may hold (model.gguf.load_memory_gib). */
  memory: number;
  /** Where the memory bound comes from, as the message says it. */
  memorySource: string;
}

export const DEFAULT_LOAD_SECONDS = 600;
const GIB = 1024 ** 3;
/** How often the memory is looked at while a model loads. */
const SAMPLE_MS = 100;

/** The bounds of a load: the settings' own, else 600 s and 90% of this machine's memory. */
export function loadBoundsOf(s: { loadTimeout?: number; loadMemory?: number }): LoadBounds {
  return {
    seconds: s.loadTimeout ?? DEFAULT_LOAD_SECONDS,
    memory: s.loadMemory ?? Math.floor(totalmem() * 0.9),
    memorySource:
      s.loadMemory === undefined
        ? "90% of this machine's memory; model.gguf.load_memory_gib"
        : "model.gguf.load_memory_gib",
  };
}

/** Bytes of memory `gib` GiB stand for (model.gguf.load_memory_gib; null: the default). */
export function loadMemoryOf(gib: number | null): number | undefined {
  return gib === null ? undefined : Math.floor(gib * GIB);
}

/**
 * The memory this process holds that the system cannot take back: on Linux its anonymous resident
 * memory (RssAnon: the heap, buffers, a context's KV cache, weights read without mmap), leaving out
 * the pages of the mapped model file, which are the page cache's; elsewhere the whole resident set.
 */
export function heldMemory(): number {
  try {
    const m = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "latin1"));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage.rss();
}

const gib = (bytes: number) => `${(bytes / GIB).toFixed(bytes < GIB ? 3 : 1)} GiB`;

/**
 * Watches one load: calls `broken` once, with one line naming the file and the bound, when the
 * load outlasts its seconds or the process's memory (`heldMemory`) goes over its bound. The timers
 * do not keep the process alive. Returns the function that stops the watch.
 */
export function watchLoad(
  path: string,
  bounds: LoadBounds,
  broken: (message: string) => void,
  memory: () => number = heldMemory,
): () => void {
  let done = false;
  const end = (message: string) => {
    if (done) return;
    stop();
    broken(message);
  };
  const timer = setTimeout(
    () =>
      end(
        `${path}: the model did not load within ${bounds.seconds} s (model.gguf.load_timeout); raise it for a large model on a slow disk, or check that the file is a model llama.cpp loads`,
      ),
    bounds.seconds * 1000,
  );
  const check = () => {
    const held = memory();
    if (held > bounds.memory)
      end(
        `${path}: loading the model took this process to ${gib(held)} of memory, over its bound of ${gib(bounds.memory)} (${bounds.memorySource}); use a smaller quantisation or model.gguf.context_size, put layers on a GPU (model.gguf.gpu_layers), or raise the bound`,
      );
  };
  const sampler = setInterval(check, SAMPLE_MS);
  timer.unref();
  sampler.unref();
  function stop(): void {
    done = true;
    clearTimeout(timer);
    clearInterval(sampler);
  }
  check();
  return stop;
}
