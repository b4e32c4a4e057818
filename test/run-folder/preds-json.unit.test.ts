import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PredsFile, PredsFileError, parsePredsJson, readPredsJson } from "../../src/run-folder/preds-file.js";

const ok = { instance_id: "a__b-1", model_name_or_path: "m", model_patch: "diff a" };
const FORM =
  "expected {instance_id, model_name_or_path, model_patch} strings as patchloop writes them: repair or remove it";

describe("preds.json's reader", () => {
  it("reads a valid file: every entry typed, no problems", () => {
    expect(parsePredsJson(JSON.stringify({ "a__b-1": ok }), "p.json")).toEqual({
      entries: { "a__b-1": ok },
      patches: { "a__b-1": "diff a" },
      raw: { "a__b-1": ok },
      problems: [],
    });
  });

  it("a text that is not JSON, or not an object keyed by id, is no preds.json at all", () => {
    expect(parsePredsJson("{oops", "p.json")).toMatchObject({ error: "not-json" });
    expect(parsePredsJson("[]", "p.json")).toEqual({ error: "not-object", got: "a list" });
    expect(parsePredsJson("null", "p.json")).toEqual({ error: "not-object", got: "null" });
    expect(parsePredsJson("3", "p.json")).toEqual({ error: "not-object", got: "number" });
  });

  it("an entry that is not a prediction is left out with a problem naming the file, the entry and the field", () => {
    const raw = {
      "a__b-1": ok,
      "a__b-2": { instance_id: "a__b-2", model_name_or_path: "m", model_patch: null },
      "a__b-3": "diff",
      "a__b-4": { ...ok, instance_id: "a__b-1" },
    };
    const read = parsePredsJson(JSON.stringify(raw), "p.json");
    expect(read).toEqual({
      entries: { "a__b-1": ok },
      // the tolerant readers' view (report, inspect): every entry's patch, where it has one
      patches: { "a__b-1": "diff a", "a__b-4": "diff a" },
      raw,
      problems: [
        `p.json: the entry "a__b-2" is not a prediction (model_patch: Invalid input: expected string, received null; received {"instance_id":"a__b-2","model_name_or_path":"m","model_patch":null}); ${FORM}`,
        `p.json: the entry "a__b-3" is not a prediction ((top level): Invalid input: expected object, received string; received "diff"); ${FORM}`,
        `p.json: the entry "a__b-4" has the instance_id "a__b-1"; an entry's key is its instance_id: repair or remove it`,
      ],
    });
  });

  it("an older entry without model_name_or_path: a problem, but its patch is still there for the tolerant readers", () => {
    const read = parsePredsJson(
      JSON.stringify({ "a__b-1": { instance_id: "a__b-1", model_patch: "d" } }),
      "p.json",
    );
    expect(read).toMatchObject({ entries: {}, patches: { "a__b-1": "d" } });
    expect("problems" in read && read.problems).toEqual([
      `p.json: the entry "a__b-1" is not a prediction (model_name_or_path: Invalid input: expected string, received undefined; received {"instance_id":"a__b-1","model_patch":"d"}); ${FORM}`,
    ]);
  });

  it("readPredsJson: a file that is not preds.json is a PredsFileError saying what to do", () => {
    const dir = mkdtempSync(join(tmpdir(), "preds-"));
    const path = join(dir, "preds.json");
    writeFileSync(path, "[1]");
    expect(() => readPredsJson(path)).toThrow(
      new PredsFileError(
        `${path} exists but is not an object keyed by instance id (got a list). Move it away, then run again.`,
      ),
    );
    writeFileSync(path, "{");
    expect(() => readPredsJson(path)).toThrow(
      /exists but is not valid JSON \(.+\)\. patchloop will not overwrite it/,
    );
    expect(() => readPredsJson(join(dir, "none.json"))).toThrow(/^cannot read .*none\.json \(ENOENT/);
  });

  it("PredsFile keeps other instances' entries as they were, valid or not; get gives valid ones only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "preds-"));
    const path = join(dir, "preds.json");
    const broken = { instance_id: "x__y-2", model_patch: 7, extra: true };
    const other = { ...ok, instance_id: "x__y-3", extra: "kept" };
    writeFileSync(path, JSON.stringify({ "x__y-2": broken, "x__y-3": other }));
    const preds = new PredsFile(dir);
    expect(preds.has("x__y-2")).toBe(true);
    expect(preds.get("x__y-2")).toBeUndefined();
    expect(preds.get("x__y-3")).toEqual({
      instance_id: "x__y-3",
      model_name_or_path: "m",
      model_patch: "diff a",
    });
    expect(preds.problems).toHaveLength(1);
    await preds.set(ok);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      "x__y-2": broken,
      "x__y-3": other,
      "a__b-1": ok,
    });
  });
});
