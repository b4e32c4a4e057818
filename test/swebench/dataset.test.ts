import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatasetError, loadDataset, parseTestList } from "../../src/swebench/dataset.js";
import { readSharedRows, SHARED_SWEBENCH } from "./shared-data.js";
import { writeParquet } from "./support/parquet-writer.js";

const tmp = mkdtempSync(join(tmpdir(), "patchloop-dataset-"));
const lite = readSharedRows("swe-bench-lite.test.jsonl");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function asStrings(rows: typeof lite): Array<Record<string, string | null>> {
  return rows.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === "" ? null : String(v)])),
  );
}

describe("local dataset files", () => {
  it("reads the shared Lite, Lite dev and Verified .jsonl files in order", async () => {
    const test = await loadDataset({ subset: join(SHARED_SWEBENCH, "swe-bench-lite.test.jsonl") });
    expect(test).toHaveLength(300);
    expect(test[0].instance_id).toBe(lite[0].instance_id);
    expect(test[299]).toEqual(lite[299]);
    expect(await loadDataset({ subset: join(SHARED_SWEBENCH, "swe-bench-lite.dev.jsonl") })).toHaveLength(23);
    expect(
      await loadDataset({ subset: join(SHARED_SWEBENCH, "swe-bench-verified.partial.jsonl") }),
    ).toHaveLength(136);
  });

  it("names the file and line of a broken .jsonl line", async () => {
    const path = join(tmp, "broken.jsonl");
    writeFileSync(path, `${JSON.stringify(lite[0])}\n\n${JSON.stringify(lite[1])}\n{"instance_id": "x",\n`);
    await expect(loadDataset({ subset: path })).rejects.toThrow(`${path}: line 4 is not valid JSON`);
  });

  it("reads a .json list and a .json object keyed by id", async () => {
    const list = join(tmp, "list.json");
    writeFileSync(list, JSON.stringify(lite.slice(0, 3)));
    expect((await loadDataset({ subset: list })).map((r) => r.instance_id)).toEqual(
      lite.slice(0, 3).map((r) => r.instance_id),
    );
    const dict = join(tmp, "dict.json");
    const { instance_id: _drop, ...rest } = lite[4];
    writeFileSync(dict, JSON.stringify({ [lite[3].instance_id]: lite[3], [lite[4].instance_id]: rest }));
    const rows = await loadDataset({ subset: dict });
    expect(rows).toEqual([lite[3], { instance_id: lite[4].instance_id, ...rest }]);
  });

  it("rejects rows without the required fields, duplicates and unknown file types", async () => {
    const bad = join(tmp, "bad.jsonl");
    writeFileSync(
      bad,
      `${JSON.stringify(lite[0])}\n${JSON.stringify({ instance_id: "a__b-1", repo: "a/b" })}\n`,
    );
    await expect(loadDataset({ subset: bad })).rejects.toThrow("line 2 has no base_commit");
    const dup = join(tmp, "dup.jsonl");
    writeFileSync(dup, `${JSON.stringify(lite[0])}\n${JSON.stringify(lite[0])}\n`);
    await expect(loadDataset({ subset: dup })).rejects.toThrow(
      `duplicate instance ids: ${lite[0].instance_id}`,
    );
    await expect(loadDataset({ subset: join(tmp, "missing.jsonl") })).rejects.toThrow(
      "dataset file not found",
    );
    await expect(loadDataset({ subset: "lightish" })).rejects.toThrow(DatasetError);
  });

  it("reads a parquet file (nullable UTF8 columns) back to the same rows", async () => {
    const rows = lite.slice(0, 5);
    const path = join(tmp, "five.parquet");
    writeFileSync(path, writeParquet(asStrings(rows)));
    const back = await loadDataset({ subset: path });
    const expected = rows.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== "")));
    expect(back).toEqual(expected);
  });
});

describe("parseTestList", () => {
  it("decodes the JSON-encoded lists and accepts decoded ones", () => {
    expect(parseTestList(lite[0], "FAIL_TO_PASS")).toEqual(JSON.parse(lite[0].FAIL_TO_PASS));
    expect(parseTestList({ instance_id: "x", FAIL_TO_PASS: ["a"] }, "FAIL_TO_PASS")).toEqual(["a"]);
  });
  it("explains malformed input", () => {
    expect(() => parseTestList({ instance_id: "x__y-1", FAIL_TO_PASS: '["a", ' }, "FAIL_TO_PASS")).toThrow(
      /instance x__y-1: FAIL_TO_PASS is not valid JSON .*got "\[\\"a\\", "/,
    );
    expect(() => parseTestList({ instance_id: "x__y-1", PASS_TO_PASS: '{"a": 1}' }, "PASS_TO_PASS")).toThrow(
      "PASS_TO_PASS must be a list of test names",
    );
  });
});

describe("Hugging Face download (server on 127.0.0.1)", () => {
  let server: Server;
  let base = "";
  const hits: string[] = [];
  const parquet = writeParquet(asStrings(lite.slice(10, 13)));
  let listing = true;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      const url = new URL(req.url ?? "/", base);
      if (url.pathname === "/api/parquet" && listing) {
        expect(url.searchParams.get("dataset")).toBe("princeton-nlp/SWE-bench_Lite");
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            parquet_files: [
              {
                dataset: "d",
                config: "default",
                split: "dev",
                url: `${base}/files/dev.parquet`,
                filename: "0000.parquet",
                size: 1,
              },
              {
                dataset: "d",
                config: "default",
                split: "test",
                url: `${base}/files/test.parquet`,
                filename: "0000.parquet",
                size: 1,
              },
            ],
          }),
        );
      } else if (url.pathname === "/files/test.parquet") res.end(parquet);
      else if (
        url.pathname ===
        "/hub/datasets/princeton-nlp/SWE-bench_Verified/resolve/refs%2Fconvert%2Fparquet/default/test/0000.parquet"
      ) {
        res.end(parquet);
      } else {
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
    expect(rows.map((r) => r.instance_id)).toEqual(lite.slice(10, 13).map((r) => r.instance_id));
    expect(hits.filter((h) => h.startsWith("/files/"))).toEqual(["/files/test.parquet"]);
    const before = hits.length;
    expect(await loadDataset(opts)).toEqual(rows);
    expect(hits.length).toBe(before);
    expect(readdirSync(join(cacheDir, "princeton-nlp__SWE-bench_Lite", "test")).sort()).toEqual([
      "0000.parquet",
      "manifest.json",
    ]);
    await expect(loadDataset({ ...opts, split: "train" })).rejects.toThrow(
      'has no split "train"; its splits: dev, test',
    );
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
    expect(rows).toHaveLength(3);
  });

  it("offline: an error naming the URL and suggesting a local file", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const dead = `http://127.0.0.1:${port}`;
    const err = await loadDataset({
      subset: "lite",
      cacheDir: join(tmp, "cache3"),
      apiUrl: dead,
      hubUrl: dead,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetError);
    expect(err.message).toContain(
      `cannot download princeton-nlp/SWE-bench_Lite (split test) from ${dead}/datasets/princeton-nlp/SWE-bench_Lite/resolve/refs%2Fconvert%2Fparquet/default/test/0000.parquet`,
    );
    expect(err.message).toContain("pass a local file instead");
    expect(err.message).toContain("ECONNREFUSED");
  });
});
