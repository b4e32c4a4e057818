import { describe, expect, it } from "vitest";
import { folderGraph, folderLayers, importCycles, readStructure } from "../../bench/structure.js";

describe("src/ import graph", () => {
  const s = readStructure();

  it("reads every source file", () => {
    expect(s.files).toBeGreaterThan(200);
    expect(s.graph.get("cli/main.ts")?.length).toBeGreaterThan(0);
  });

  it("finds a cycle when there is one (the check itself)", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(importCycles(g)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("has no import cycles (runtime imports; type-only ones are erased)", () => {
    expect(importCycles(s.graph)).toEqual([]);
  });
});

describe("src/ folders as layers", () => {
  const runtime = folderGraph(readStructure().graph).graph;
  const withTypes = folderGraph(readStructure(undefined, true).graph);

  it("finds a folder cycle made of files that form none (the check itself)", () => {
    // a/x -> b/y -> a/z: no file cycle, but folders a and b import each other
    const files = new Map([
      ["a/x.ts", ["b/y.ts"]],
      ["b/y.ts", ["a/z.ts"]],
      ["a/z.ts", []],
      ["c.ts", ["a/x.ts"]],
    ]);
    expect(importCycles(files)).toEqual([]);
    const f = folderGraph(files);
    expect(f.graph).toEqual(
      new Map([
        ["a", ["b"]],
        ["b", ["a"]],
        [".", ["a"]],
      ]),
    );
    expect(f.imports.get("b -> a")).toEqual(["b/y.ts -> a/z.ts"]);
    expect(importCycles(f.graph)).toEqual([["a", "b"]]);
    expect(folderLayers(f.graph)).toBeNull();
    expect(
      folderLayers(
        new Map([
          ["a", ["b", "u"]],
          ["b", ["u"]],
          ["u", []],
        ]),
      ),
    ).toEqual(
      new Map([
        ["a", 2],
        ["b", 1],
        ["u", 0],
      ]),
    );
  });

  it("has no folder cycles, with runtime imports or with type-only ones too", () => {
    const named = (g: Map<string, string[]>) =>
      importCycles(g).map((c) =>
        c.flatMap((a) => c.flatMap((b) => withTypes.imports.get(`${a} -> ${b}`)?.slice(0, 2) ?? [])),
      );
    expect(named(runtime)).toEqual([]);
    expect(named(withTypes.graph)).toEqual([]);
    expect(folderLayers(withTypes.graph)).not.toBeNull();
  });

  it("keeps config at the bottom: it imports nothing but util and the top-level files", () => {
    // the schema owns every part it validates (selection, model families, image templates)
    expect(withTypes.graph.get("config")).toEqual([".", "util"]);
    expect(withTypes.graph.get("util") ?? []).toEqual([]);
  });
});
