import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DatasetError, loadDataset, parseTestList } from "../../src/dataset/load.js";
import { SWEBENCH_DATA, swebenchRows } from "../support/data.js";
import { writeParquet } from "../support/parquet-writer.js";

const tmp = mkdtempSync(join(tmpdir(), "patchloop-dataset-"));
const lite = swebenchRows("swe-bench-lite.test.jsonl");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function asStrings(rows: typeof lite): Array<Record<string, string | null>> {
  return rows.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === "" ? null : String(v)])),
  );
}

describe("local dataset files", () => {
  it("reads the vendored Lite, Lite dev and Verified .jsonl files in order", async () => {
    const test = await loadDataset({ subset: join(SWEBENCH_DATA, "swe-bench-lite.test.jsonl") });
    expect(test).toHaveLength(300);
    expect(test[0].instance_id).toBe(lite[0].instance_id);
    expect(test[299]).toEqual(lite[299]);
    expect(await loadDataset({ subset: join(SWEBENCH_DATA, "swe-bench-lite.dev.jsonl") })).toHaveLength(23);
    expect(
      await loadDataset({ subset: join(SWEBENCH_DATA, "swe-bench-verified.partial.jsonl") }),
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

  it("accepts only the default split with a local file: a file has no splits", async () => {
    const path = join(tmp, "three.jsonl");
    writeFileSync(
      path,
      `${lite
        .slice(0, 3)
        .map((r) => JSON.stringify(r))
        .join("\n")}\n`,
    );
    expect(await loadDataset({ subset: path, split: "test" })).toEqual(lite.slice(0, 3));
    expect(await loadDataset({ subset: path })).toEqual(lite.slice(0, 3));
    for (const split of ["dev", "bogus"]) {
      await expect(loadDataset({ subset: path, split })).rejects.toThrow(
        new DatasetError(
          `${path} is a local file, which has no splits; got --split "${split}". ` +
            "Leave --split out (or use test) and pass the file with the rows you want.",
        ),
      );
    }
    await expect(loadDataset({ subset: join(tmp, "gone.jsonl"), split: "dev" })).rejects.toThrow(
      new DatasetError(`dataset file not found: ${join(tmp, "gone.jsonl")}`),
    );
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
