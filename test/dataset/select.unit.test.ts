import { describe, expect, it } from "vitest";
import { DatasetError } from "../../src/dataset/load.js";
import { pySlice, selectInstances } from "../../src/dataset/select.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { swebenchRows } from "../support/data.js";

const lite = swebenchRows("swe-bench-lite.test.jsonl");
const ids = (rows: SwebenchInstance[]) => rows.map((r) => r.instance_id);
const ten = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

describe("pySlice (Python semantics)", () => {
  it.each([
    ["0:3", [0, 1, 2]],
    ["7:", [7, 8, 9]],
    [":2", [0, 1]],
    ["-3:", [7, 8, 9]],
    [":-8", [0, 1]],
    ["-3:-1", [7, 8]],
    ["5:2", []],
    ["20:30", []],
    ["-20:2", [0, 1]],
    [":", ten],
    ["::3", [0, 3, 6, 9]],
    ["::-4", [9, 5, 1]],
    ["8:2:-2", [8, 6, 4]],
  ])("%s", (spec, expected) => {
    expect(pySlice(ten, spec)).toEqual(expected);
  });
  it("rejects malformed specs", () => {
    expect(() => pySlice(ten, "3")).toThrow("invalid --slice");
    expect(() => pySlice(ten, "a:b")).toThrow("expected START:STOP[:STEP]");
    expect(() => pySlice(ten, "::0")).toThrow("the step cannot be 0");
  });
});

describe("selectInstances", () => {
  it("filters ids with a regex anchored at the start, then slices", () => {
    const flask = selectInstances(lite, { filter: "pallets__" });
    expect(ids(flask)).toEqual(["pallets__flask-4045", "pallets__flask-4992", "pallets__flask-5063"]);
    expect(selectInstances(lite, { filter: "flask" })).toHaveLength(0);
    expect(ids(selectInstances(lite, { filter: "sympy|pallets", slice: "-2:" }))).toEqual(
      ids(lite.filter((r) => /^(sympy|pallets)/.test(r.instance_id))).slice(-2),
    );
    expect(() => selectInstances(lite, { filter: "(" })).toThrow("invalid --filter regex");
  });

  it("shuffles deterministically by seed, whatever the input order", () => {
    const a = ids(selectInstances(lite, { shuffle: true }));
    const b = ids(selectInstances([...lite].reverse(), { shuffle: true }));
    const c = ids(selectInstances(lite, { shuffle: true, seed: 7 }));
    expect(a).toEqual(b);
    expect(a).not.toEqual(ids(lite));
    expect(c).not.toEqual(a);
    expect([...a].sort()).toEqual([...ids(lite)].sort());
    expect(ids(selectInstances(lite, { shuffle: true, slice: ":5" }))).toEqual(a.slice(0, 5));
  });

  it("keeps the requested ids in dataset order and lists unknown ones", () => {
    const wanted = [lite[40].instance_id, lite[3].instance_id];
    expect(ids(selectInstances(lite, { instanceIds: wanted }))).toEqual([
      lite[3].instance_id,
      lite[40].instance_id,
    ]);
    expect(() =>
      selectInstances(lite, { instanceIds: [lite[0].instance_id, "nope__nope-1", "x__y-2"] }),
    ).toThrow("unknown instance ids (not in the dataset): nope__nope-1, x__y-2.");
  });

  it("rejects an empty --slice string instead of selecting everything", () => {
    expect(() => selectInstances(lite, { slice: "" })).toThrow(
      new DatasetError('--slice needs A:B, e.g. 0:10; got ""'),
    );
    expect(() => selectInstances(lite, { slice: "  " })).toThrow(
      new DatasetError('--slice needs A:B, e.g. 0:10; got "  "'),
    );
    expect(selectInstances(lite, { slice: undefined })).toEqual(lite);
  });

  it.each([
    ["5:2", "--slice 5:2 selects nothing: the start (5) is not before the end (2)"],
    ["3:3", "--slice 3:3 selects nothing: the start (3) is not before the end (3)"],
    ["-1:-3", "--slice -1:-3 selects nothing: the start (-1, i.e. 299) is not before the end (-3, i.e. 297)"],
    [":-400", "--slice :-400 selects nothing: the start (0) is not before the end (-400, i.e. 0)"],
    [
      "300:",
      "--slice 300: selects nothing: the start (300) is past the end of the 300 instances (indexes 0 to 299, or -300 to -1)",
    ],
    [
      "400:410",
      "--slice 400:410 selects nothing: the start (400) is past the end of the 300 instances (indexes 0 to 299, or -300 to -1)",
    ],
    [
      "2:8:-1",
      "--slice 2:8:-1 selects nothing: with a negative step the start (2) must be after the end (8)",
    ],
    [
      "-400::-1",
      "--slice -400::-1 selects nothing: the start (-400) is before the beginning of the 300 instances (indexes 0 to 299, or -300 to -1)",
    ],
  ])("an empty slice %s is an error saying why", (slice, message) => {
    expect(() => selectInstances(lite, { slice })).toThrow(new DatasetError(message));
  });

  it("counts what --filter and --instance-ids left when the slice starts past it", () => {
    expect(() => selectInstances(lite, { filter: "pallets__", slice: "3:" })).toThrow(
      new DatasetError(
        "--slice 3: selects nothing: the start (3) is past the end of the 3 instances left after --filter (indexes 0 to 2, or -3 to -1)",
      ),
    );
    const one = [lite[7].instance_id];
    expect(() => selectInstances(lite, { instanceIds: one, filter: "", slice: "1:" })).toThrow(
      new DatasetError(
        "--slice 1: selects nothing: the start (1) is past the end of the 1 instance left after --instance-ids (index 0, or -1)",
      ),
    );
    expect(ids(selectInstances(lite, { instanceIds: one, slice: "-1:" }))).toEqual(one);
  });

  it("leaves an empty selection before the slice to the caller (the filter emptied it)", () => {
    expect(selectInstances(lite, { filter: "nope__", slice: "0:5" })).toEqual([]);
  });
});
