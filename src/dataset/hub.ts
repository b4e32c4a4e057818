import { homedir } from "node:os";
import { join } from "node:path";
import { CacheWriter, cachedFiles, cacheFolder } from "./cache-files.js";
import { DatasetError } from "./errors.js";

/**
 * The Hugging Face datasets behind `--subset`: SWE-bench's own (lite, verified, full,
 * multilingual), SWE-bench Pro's public set, SWE-bench-Live (Python; its multi-language and
 * Windows sets), SWE-rebench and SWE-Gym. docs/datasets.md says what each row holds.
 */
export const HUB_DATASETS: Readonly<Record<string, string>> = {
  lite: "princeton-nlp/SWE-bench_Lite",
  verified: "princeton-nlp/SWE-bench_Verified",
  full: "princeton-nlp/SWE-bench",
  multilingual: "SWE-bench/SWE-bench_Multilingual",
  pro: "ScaleAI/SWE-bench_Pro",
  live: "SWE-bench-Live/SWE-bench-Live",
  "live-multilang": "SWE-bench-Live/MultiLang",
  "live-windows": "SWE-bench-Live/Windows",
  rebench: "nebius/SWE-rebench",
  gym: "SWE-Gym/SWE-Gym",
};

/**
 * The splits of the datasets in `HUB_DATASETS` (keyed by Hugging Face name): asking one of them
 * for another split is an error before any download.
 */
export const HUB_SPLITS: Readonly<Record<string, readonly string[]>> = {
  "princeton-nlp/SWE-bench_Lite": ["dev", "test"],
  "princeton-nlp/SWE-bench_Verified": ["test"],
  "princeton-nlp/SWE-bench": ["dev", "test", "train"],
  "SWE-bench/SWE-bench_Multilingual": ["test"],
  "ScaleAI/SWE-bench_Pro": ["test"],
  "SWE-Gym/SWE-Gym": ["train"],
};

const DEFAULT_ENDPOINT = "https://huggingface.co";
const DEFAULT_API = "https://datasets-server.huggingface.co";

/** The Hugging Face endpoint in use and where it came from. */
export interface HubEndpoint {
  /** Base URL without a trailing slash. */
  url: string;
  /** `option`: `HubOptions.hubUrl`; `HF_ENDPOINT`: the environment variable; `default`: huggingface.co. */
  from: "option" | "HF_ENDPOINT" | "default";
}

/**
 * The Hub base URL: `hubUrl` when given, else `HF_ENDPOINT` when set and non-empty (a mirror, as
 * huggingface_hub honours it), else https://huggingface.co; trailing slashes are dropped.
 */
export function hubEndpoint(hubUrl?: string): HubEndpoint {
  const env = process.env.HF_ENDPOINT?.trim();
  const [url, from]: [string, HubEndpoint["from"]] =
    hubUrl !== undefined ? [hubUrl, "option"] : env ? [env, "HF_ENDPOINT"] : [DEFAULT_ENDPOINT, "default"];
  return { url: url.replace(/\/+$/, ""), from };
}

/** Where and how to download. Every URL and the fetch function can be replaced (tests use 127.0.0.1). */
export interface HubOptions {
  /** Directory of the download cache; default `$XDG_CACHE_HOME/patchloop/datasets` or `~/.cache/patchloop/datasets`. */
  cacheDir?: string;
  fetch?: typeof fetch;
  /** Default `HF_ENDPOINT` when set, else `https://huggingface.co`. */
  hubUrl?: string;
  /**
   * The dataset viewer API that lists a dataset's parquet files; default
   * `https://datasets-server.huggingface.co`, except with `HF_ENDPOINT` set (mirrors do not serve
   * it): then the listing is skipped and only the Hub's `refs/convert/parquet` file is fetched.
   */
  apiUrl?: string;
  /** Sent as a bearer token when set (default: `HF_TOKEN`); never logged. */
  token?: string;
}

/** The default cache directory. */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "patchloop", "datasets");
}

function offlineError(
  what: string,
  url: string,
  cause: unknown,
  cacheDir: string,
  endpoint: HubEndpoint,
): DatasetError {
  const reason =
    cause instanceof Error
      ? cause.cause instanceof Error
        ? cause.cause.message
        : cause.message
      : String(cause);
  const where =
    endpoint.from === "HF_ENDPOINT"
      ? `${endpoint.url} (from HF_ENDPOINT)`
      : endpoint.from === "default"
        ? `${endpoint.url} (set HF_ENDPOINT to use a mirror)`
        : endpoint.url;
  return new DatasetError(
    `cannot download ${what} from ${url}: ${reason}. Hugging Face endpoint: ${where}. ` +
      "Without network access, pass a local file instead " +
      "(--subset/--dataset PATH with a .json, .jsonl or .parquet file in the Hugging Face schema); " +
      `downloads are cached under ${cacheDir}.`,
  );
}

interface DownloadSettings {
  fetch: typeof fetch;
  hubUrl: string;
  /** Undefined: no listing API (a mirror set by HF_ENDPOINT). */
  apiUrl?: string;
  headers: Record<string, string>;
}

/**
 * The parquet URLs of one split: first from the dataset viewer's `/parquet` listing (all shards),
 * and where that cannot be reached, the `refs/convert/parquet` branch's conventional first shard
 * `default/<split>/0000.parquet` (the only source when no listing API is in use).
 */
async function parquetUrls(
  dataset: string,
  split: string,
  opts: DownloadSettings,
): Promise<Array<{ url: string; name: string }>> {
  if (opts.apiUrl === undefined) return [hubFallback(dataset, split, opts.hubUrl)];
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
  return [hubFallback(dataset, split, opts.hubUrl)];
}

/** The first shard of the split on the Hub's `refs/convert/parquet` branch. */
function hubFallback(dataset: string, split: string, hubUrl: string): { url: string; name: string } {
  const url = `${hubUrl}/datasets/${dataset}/resolve/${encodeURIComponent("refs/convert/parquet")}/default/${split}/0000.parquet`;
  return { url, name: "0000.parquet" };
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
  const endpoint = hubEndpoint(options.hubUrl);
  const apiUrl = options.apiUrl ?? (endpoint.from === "HF_ENDPOINT" ? undefined : DEFAULT_API);
  const opts: DownloadSettings = {
    fetch: options.fetch ?? fetch,
    hubUrl: endpoint.url,
    apiUrl: apiUrl?.replace(/\/+$/, ""),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  };
  const what = `${dataset} (split ${split})`;
  const files = await parquetUrls(dataset, split, opts);
  const writer = new CacheWriter(folder);
  try {
    const paths: string[] = [];
    for (const file of files) {
      let res: Response;
      try {
        res = await opts.fetch(file.url, { headers: opts.headers });
      } catch (err) {
        throw offlineError(what, file.url, err, cacheDir, endpoint);
      }
      if (!res.ok) {
        throw new DatasetError(
          `cannot download ${what} from ${file.url}: HTTP ${res.status} ${res.statusText}. ` +
            "Check the dataset name and split, or pass a local .json, .jsonl or .parquet file.",
        );
      }
      paths.push(await writer.write(file.name, Buffer.from(await res.arrayBuffer())));
    }
    await writer.finish(
      dataset,
      split,
      files.map((f) => f.name),
    );
    return paths;
  } catch (err) {
    await writer.discard();
    throw err;
  }
}
