import { isPodman } from "../environments/container-cli.js";
import { imagePresent, pullImage, qualifyImageName } from "../environments/container-images.js";

/**
 * The SWE-bench instance image of an instance id, as the official harness names it:
 * `docker.io/swebench/sweb.eval.x86_64.<id, "__" -> "_1776_">:latest`, lowercase.
 */
export function instanceImageName(instanceId: string): string {
  const id = instanceId.replaceAll("__", "_1776_").toLowerCase();
  return `docker.io/swebench/sweb.eval.x86_64.${id}:latest`;
}

/** One step of {@link pullImages}, for progress display. */
export interface PullProgress {
  name: string;
  /** `present`: skipped; `pulling`: attempt started; `retry`: attempt failed, another follows. */
  event: "present" | "pulling" | "pulled" | "retry" | "failed";
  /** 1-based attempt number (pulling, retry, pulled, failed). */
  attempt?: number;
  /** The failure's reason (retry, failed). */
  error?: string;
  /** Images finished so far (present, pulled or failed) and in all. */
  done: number;
  total: number;
}

/** Options of {@link pullImages}. */
export interface PullImagesOptions {
  /** `docker` (default) or `podman` (names are fully qualified for it). */
  executable?: string;
  /** Pulls at the same time; default 2. */
  parallel?: number;
  /** Seconds one pull attempt may take; default 600. */
  pullTimeout?: number;
  /** Extra attempts after a failed pull; default 2. */
  retries?: number;
  /** Seconds before a retry, times the attempt number; default 5. */
  retryDelay?: number;
  onProgress?: (p: PullProgress) => void;
}

/** What {@link pullImages} did, by image name (duplicates counted once). */
export interface PullSummary {
  pulled: string[];
  present: string[];
  failed: Array<{ name: string; error: string }>;
}

/**
 * Pulls images ahead of a run, `parallel` at a time, skipping those already present and retrying
 * failures. Never rejects for a failed pull: failures are in the summary.
 */
export async function pullImages(names: string[], options: PullImagesOptions = {}): Promise<PullSummary> {
  const exe = options.executable ?? "docker";
  const parallel = Math.max(1, Math.floor(options.parallel ?? 2));
  const retries = Math.max(0, Math.floor(options.retries ?? 2));
  const delay = options.retryDelay ?? 5;
  const unique = [...new Set(names)];
  const summary: PullSummary = { pulled: [], present: [], failed: [] };
  const total = unique.length;
  let done = 0;
  const report = (p: Omit<PullProgress, "done" | "total">) => options.onProgress?.({ ...p, done, total });

  async function one(name: string): Promise<void> {
    const wanted = isPodman(exe) ? qualifyImageName(name) : name;
    if ((await imagePresent(exe, name)) || (wanted !== name && (await imagePresent(exe, wanted)))) {
      summary.present.push(name);
      done++;
      report({ name, event: "present" });
      return;
    }
    for (let attempt = 1; ; attempt++) {
      report({ name, event: "pulling", attempt });
      const r = await pullImage(exe, wanted, options.pullTimeout ?? 600);
      if (r.ok) {
        summary.pulled.push(name);
        done++;
        report({ name, event: "pulled", attempt });
        return;
      }
      const error = r.error ?? "unknown error";
      if (attempt > retries) {
        summary.failed.push({ name, error });
        done++;
        report({ name, event: "failed", attempt, error });
        return;
      }
      report({ name, event: "retry", attempt, error });
      if (delay > 0) await new Promise((res) => setTimeout(res, delay * attempt * 1000));
    }
  }

  let next = 0;
  const workers = Array.from({ length: Math.min(parallel, unique.length) }, async () => {
    while (next < unique.length) await one(unique[next++]);
  });
  await Promise.all(workers);
  return summary;
}
