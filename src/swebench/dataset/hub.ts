import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { DatasetError } from "./errors.js";

/** The Hugging Face datasets behind `--subset lite|verified|full`. */
export const HUB_DATASETS: Readonly<Record<string, string>> = {
  lite: "princeton-nlp/SWE-bench_Lite",
  verified: "princeton-nlp/SWE-bench_Verified",
  full: "princeton-nlp/SWE-bench",
};

/** Where and how to download. Every URL and the fetch function can be replaced (tests use 127.0.0.1). */
export interface HubOptions {
  /** Directory of the download cache; default `$XDG_CACHE_HOME/patchloop/datasets` or `~/.cache/patchloop/datasets`. */
  cacheDir?: string;
  fetch?: typeof fetch;
  /** Default `https://huggingface.co`. */
  hubUrl?: string;
  /** The dataset viewer API that lists a dataset's parquet files; default `https://datasets-server.huggingface.co`. */
  apiUrl?: string;
  /** Sent as a bearer token when set (default: `HF_TOKEN`); never logged. */
  token?: string;
}

/** The default cache directory. */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "patchloop", "datasets");
}

interface Manifest {
  dataset: string;
  split: string;
  files: string[];
  downloaded_at: string;
}

function cacheFolder(cacheDir: string, dataset: string, split: string): string {
  return join(cacheDir, dataset.replaceAll("/", "__"), split);
}

/** The cached parquet files of `dataset`/`split`, or undefined when not (completely) cached. */
async function cachedFiles(folder: string): Promise<string[] | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(folder, "manifest.json"), "utf8")) as Manifest;
    return manifest.files.map((f) => join(folder, f));
  } catch {
    return undefined;
  }
}

function offlineError(what: string, url: string, cause: unknown, cacheDir: string): DatasetError {
  const reason =
    cause instanceof Error
      ? cause.cause instanceof Error
        ? cause.cause.message
        : cause.message
      : String(cause);
  return new DatasetError(
    `cannot download ${what} from ${url}: ${reason}. Without network access, pass a local file instead ` +
      "(--subset/--dataset PATH with a .json, .jsonl or .parquet file in the Hugging Face schema); " +
      `downloads are cached under ${cacheDir}.`,
  );
}

/**
 * The parquet URLs of one split: first from the dataset viewer's `/parquet` listing (all shards),
 * and where that cannot be reached, the `refs/convert/parquet` branch's conventional first shard
 * `default/<split>/0000.parquet`.
 */
async function parquetUrls(
  dataset: string,
  split: string,
  opts: Required<Omit<HubOptions, "token">> & { headers: Record<string, string> },
): Promise<Array<{ url: string; name: string }>> {
  const listing = `${opts.apiUrl}/parquet?dataset=${encodeURIComponent(dataset)}`;
  let body:
    | { parquet_files?: Array<{ config: string; split: string; url: string; filename: string }> }
    | undefined;
  try {
    const res = await opts.fetch(listing, { headers: opts.headers });
    if (res.ok) body = (await res.json()) as typeof body;
  } catch {
    body = undefined;
  }
  if (body?.parquet_files) {
    const files = body.parquet_files.filter((f) => f.config === "default" && f.split === split);
    if (files.length === 0) {
      const splits = [...new Set(body.parquet_files.map((f) => f.split))].join(", ");
      throw new DatasetError(
        `${dataset} has no split ${JSON.stringify(split)}; its splits: ${splits || "none listed"}.`,
      );
    }
    return files.map((f, i) => ({ url: f.url, name: `${String(i).padStart(4, "0")}.parquet` }));
  }
  const url = `${opts.hubUrl}/datasets/${dataset}/resolve/${encodeURIComponent("refs/convert/parquet")}/default/${split}/0000.parquet`;
  return [{ url, name: "0000.parquet" }];
}

/**
 * Downloads (or finds in the cache) the parquet files of a Hugging Face dataset split and
 * returns their local paths. Files are written to a temporary name and renamed, and the
 * manifest is written last, so an interrupted download is never taken for a cached one.
 */
export async function fetchHubParquet(
  dataset: string,
  split: string,
  options: HubOptions = {},
): Promise<string[]> {
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const folder = cacheFolder(cacheDir, dataset, split);
  const cached = await cachedFiles(folder);
  if (cached) return cached;
  const token = options.token ?? process.env.HF_TOKEN;
  const opts = {
    cacheDir,
    fetch: options.fetch ?? fetch,
    hubUrl: (options.hubUrl ?? "https://huggingface.co").replace(/\/$/, ""),
    apiUrl: (options.apiUrl ?? "https://datasets-server.huggingface.co").replace(/\/$/, ""),
    headers: token ? { authorization: `Bearer ${token}` } : ({} as Record<string, string>),
  };
  const what = `${dataset} (split ${split})`;
  const files = await parquetUrls(dataset, split, opts);
  await mkdir(folder, { recursive: true });
  for (const file of files) {
    let res: Response;
    try {
      res = await opts.fetch(file.url, { headers: opts.headers });
    } catch (err) {
      throw offlineError(what, file.url, err, cacheDir);
    }
    if (!res.ok) {
      throw new DatasetError(
        `cannot download ${what} from ${file.url}: HTTP ${res.status} ${res.statusText}. ` +
          "Check the dataset name and split, or pass a local .json, .jsonl or .parquet file.",
      );
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    const tmp = join(folder, `${file.name}.tmp-${process.pid}`);
    await writeFile(tmp, bytes);
    await rename(tmp, join(folder, file.name));
  }
  const manifest: Manifest = {
    dataset,
    split,
    files: files.map((f) => f.name),
    downloaded_at: new Date().toISOString(),
  };
  const tmp = join(folder, `manifest.json.tmp-${process.pid}`);
  await writeFile(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(tmp, join(folder, "manifest.json"));
  return files.map((f) => join(folder, f.name));
}
