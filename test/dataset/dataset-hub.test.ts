import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DatasetError, hubEndpoint, loadDataset } from "../../src/dataset/load.js";
import { swebenchRows } from "../support/data.js";
import { writeParquet } from "../support/parquet-writer.js";

const tmp = mkdtempSync(join(tmpdir(), "patchloop-dataset-hub-"));
const lite = swebenchRows("swe-bench-lite.test.jsonl");
const savedEndpoint = process.env.HF_ENDPOINT;
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  if (savedEndpoint === undefined) delete process.env.HF_ENDPOINT;
  else process.env.HF_ENDPOINT = savedEndpoint;
});

function asStrings(rows: typeof lite): Array<Record<string, string | null>> {
  return rows.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === "" ? null : String(v)])),
  );
}
const idsOf = (rows: typeof lite) => rows.map((r) => r.instance_id);
const FALLBACK = "resolve/refs%2Fconvert%2Fparquet/default/test/0000.parquet";

/** A URL on 127.0.0.1 where nothing listens. */
async function deadUrl(): Promise<{ url: string; port: number }> {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  return { url: `http://127.0.0.1:${port}`, port };
}

/** `fetch` that records every URL and refuses any outside `prefix`: the tests never leave 127.0.0.1. */
function localFetch(prefix: string, fetched: string[]): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    fetched.push(url);
    if (!url.startsWith(`${prefix}/`)) return Promise.reject(new Error(`the test must not reach ${url}`));
    return fetch(input, init);
  };
}

function offlineMessage(dataset: string, url: string, port: number, endpoint: string, cacheDir: string) {
  return (
    `cannot download ${dataset} (split test) from ${url}: connect ECONNREFUSED 127.0.0.1:${port}. ` +
    `Hugging Face endpoint: ${endpoint}. Without network access, pass a local file instead ` +
    "(--subset/--dataset PATH with a .json, .jsonl or .parquet file in the Hugging Face schema); " +
    `downloads are cached under ${cacheDir}.`
  );
}

describe("Hugging Face download (server on 127.0.0.1)", () => {
  let server: Server;
  let base = "";
  const hits: string[] = [];
  const parquet = writeParquet(asStrings(lite.slice(10, 13)));
  const mirrored = writeParquet(asStrings(lite.slice(20, 22)));
  let listing = true;
  const shard = (split: string, url: string) => ({
    dataset: "d",
    config: "default",
    split,
    url,
    filename: "x",
    size: 1,
  });
  const listings = (): Record<string, unknown[]> => ({
    "princeton-nlp/SWE-bench_Lite": [
      shard("dev", `${base}/files/dev.parquet`),
      shard("test", `${base}/files/test.parquet`),
    ],
    "acme/tiny": [
      shard("test", `${base}/files/test.parquet`),
      shard("test", `${base}/files/missing.parquet`),
    ],
    "acme/other": [shard("dev", `${base}/files/dev.parquet`)],
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      const url = new URL(req.url ?? "/", base);
      const files = listings()[url.searchParams.get("dataset") ?? ""];
      if (url.pathname === "/api/parquet" && listing && files) {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ parquet_files: files }));
      } else if (url.pathname === "/files/test.parquet") res.end(parquet);
      else if (url.pathname === `/hub/datasets/princeton-nlp/SWE-bench_Verified/${FALLBACK}`)
        res.end(parquet);
      else if (url.pathname === `/mirror/datasets/princeton-nlp/SWE-bench_Lite/${FALLBACK}`)
        res.end(mirrored);
      else {
        res.statusCode = 404;
        res.end("not found");
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("downloads the split's parquet files once, then reads them from the cache", async () => {
    const cacheDir = join(tmp, "cache1");
    const opts = { subset: "lite", split: "test", cacheDir, apiUrl: `${base}/api`, hubUrl: `${base}/hub` };
    const rows = await loadDataset(opts);
    expect(idsOf(rows)).toEqual(idsOf(lite.slice(10, 13)));
    expect(hits.filter((h) => h.startsWith("/files/"))).toEqual(["/files/test.parquet"]);
    const before = hits.length;
    expect(await loadDataset(opts)).toEqual(rows);
    expect(hits.length).toBe(before);
    expect(readdirSync(join(cacheDir, "princeton-nlp__SWE-bench_Lite", "test")).sort()).toEqual([
      "0000.parquet",
      "manifest.json",
    ]);
  });

  it("rejects a split the named subsets do not have before any request", async () => {
    const before = hits.length;
    const opts = { cacheDir: join(tmp, "cache-split"), apiUrl: `${base}/api`, hubUrl: `${base}/hub` };
    await expect(loadDataset({ ...opts, subset: "lite", split: "train" })).rejects.toThrow(
      new DatasetError(
        'unknown split "train" for lite (princeton-nlp/SWE-bench_Lite): its splits are dev and test.',
      ),
    );
    await expect(loadDataset({ ...opts, subset: "verified", split: "dev" })).rejects.toThrow(
      new DatasetError(
        'unknown split "dev" for verified (princeton-nlp/SWE-bench_Verified): its only split is test.',
      ),
    );
    await expect(loadDataset({ ...opts, subset: "full", split: "bogus" })).rejects.toThrow(
      new DatasetError(
        'unknown split "bogus" for full (princeton-nlp/SWE-bench): its splits are dev, test and train.',
      ),
    );
    await expect(
      loadDataset({ ...opts, subset: "princeton-nlp/SWE-bench_Lite", split: "bogus" }),
    ).rejects.toThrow(
      new DatasetError(
        'unknown split "bogus" for princeton-nlp/SWE-bench_Lite: its splits are dev and test.',
      ),
    );
    expect(hits.length).toBe(before);
    expect(existsSync(opts.cacheDir)).toBe(false);
  });

  it("other datasets: the listing says which splits there are", async () => {
    const cacheDir = join(tmp, "cache-other");
    await expect(
      loadDataset({ subset: "acme/other", cacheDir, apiUrl: `${base}/api`, hubUrl: `${base}/hub` }),
    ).rejects.toThrow(new DatasetError('acme/other has no split "test"; its splits: dev.'));
    expect(existsSync(cacheDir)).toBe(false);
  });

  it("falls back to the refs/convert/parquet file when the listing API fails", async () => {
    listing = false;
    const rows = await loadDataset({
      subset: "verified",
      cacheDir: join(tmp, "cache2"),
      apiUrl: `${base}/api`,
      hubUrl: `${base}/hub`,
    });
    listing = true;
    expect(idsOf(rows)).toEqual(idsOf(lite.slice(10, 13)));
  });

  it("offline: an error naming the URL and the endpoint, and no cache folder left behind", async () => {
    const dead = await deadUrl();
    const cacheDir = join(tmp, "cache3");
    const err = await loadDataset({ subset: "lite", cacheDir, apiUrl: dead.url, hubUrl: dead.url }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(DatasetError);
    expect(err.message).toBe(
      offlineMessage(
        "princeton-nlp/SWE-bench_Lite",
        `${dead.url}/datasets/princeton-nlp/SWE-bench_Lite/${FALLBACK}`,
        dead.port,
        dead.url,
        cacheDir,
      ),
    );
    expect(existsSync(cacheDir)).toBe(false);
  });

  it("a download failing after its first file removes what it wrote and keeps the rest", async () => {
    const opts = { subset: "acme/tiny", apiUrl: `${base}/api`, hubUrl: `${base}/hub` };
    const message =
      `cannot download acme/tiny (split test) from ${base}/files/missing.parquet: HTTP 404 Not Found. ` +
      "Check the dataset name and split, or pass a local .json, .jsonl or .parquet file.";
    const fresh = join(tmp, "cache4", "nested");
    await expect(loadDataset({ ...opts, cacheDir: fresh })).rejects.toThrow(new DatasetError(message));
    expect(existsSync(join(tmp, "cache4"))).toBe(false);
    const used = join(tmp, "cache5");
    mkdirSync(join(used, "acme__tiny"), { recursive: true });
    writeFileSync(join(used, "acme__tiny", "keep.txt"), "mine");
    await expect(loadDataset({ ...opts, cacheDir: used })).rejects.toThrow(new DatasetError(message));
    expect(readdirSync(used)).toEqual(["acme__tiny"]);
    expect(readdirSync(join(used, "acme__tiny"))).toEqual(["keep.txt"]);
  });

  it("HF_ENDPOINT: downloads from the mirror (no listing API, nothing else reached) and caches", async () => {
    process.env.HF_ENDPOINT = `${base}/mirror//`;
    const fetched: string[] = [];
    const onlyLocal = localFetch(base, fetched);
    const cacheDir = join(tmp, "cache6");
    const rows = await loadDataset({ subset: "lite", cacheDir, fetch: onlyLocal });
    expect(idsOf(rows)).toEqual(idsOf(lite.slice(20, 22)));
    expect(fetched).toEqual([`${base}/mirror/datasets/princeton-nlp/SWE-bench_Lite/${FALLBACK}`]);
    expect(await loadDataset({ subset: "lite", cacheDir, fetch: onlyLocal })).toEqual(rows);
    expect(fetched).toHaveLength(1);
    expect(readdirSync(join(cacheDir, "princeton-nlp__SWE-bench_Lite", "test")).sort()).toEqual([
      "0000.parquet",
      "manifest.json",
    ]);
  });

  it("HF_ENDPOINT offline: the error says the endpoint came from HF_ENDPOINT", async () => {
    const dead = await deadUrl();
    process.env.HF_ENDPOINT = `${dead.url}/`;
    const cacheDir = join(tmp, "cache7");
    const fetched: string[] = [];
    const err = await loadDataset({ subset: "lite", cacheDir, fetch: localFetch(dead.url, fetched) }).catch(
      (e) => e,
    );
    expect(fetched).toEqual([`${dead.url}/datasets/princeton-nlp/SWE-bench_Lite/${FALLBACK}`]);
    expect(err).toBeInstanceOf(DatasetError);
    expect(err.message).toBe(
      offlineMessage(
        "princeton-nlp/SWE-bench_Lite",
        `${dead.url}/datasets/princeton-nlp/SWE-bench_Lite/${FALLBACK}`,
        dead.port,
        `${dead.url} (from HF_ENDPOINT)`,
        cacheDir,
      ),
    );
    expect(existsSync(cacheDir)).toBe(false);
  });
});

describe("hubEndpoint", () => {
  it("prefers the option, then HF_ENDPOINT, then huggingface.co, without trailing slashes", () => {
    delete process.env.HF_ENDPOINT;
    expect(hubEndpoint()).toEqual({ url: "https://huggingface.co", from: "default" });
    process.env.HF_ENDPOINT = "  ";
    expect(hubEndpoint()).toEqual({ url: "https://huggingface.co", from: "default" });
    process.env.HF_ENDPOINT = "https://mirror.example/hf/";
    expect(hubEndpoint()).toEqual({ url: "https://mirror.example/hf", from: "HF_ENDPOINT" });
    expect(hubEndpoint("http://127.0.0.1:9/x/")).toEqual({ url: "http://127.0.0.1:9/x", from: "option" });
  });
});
