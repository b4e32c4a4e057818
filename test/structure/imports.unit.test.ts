import { describe, expect, it } from "vitest";
import { importCycles, readStructure } from "../../bench/structure.js";

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
