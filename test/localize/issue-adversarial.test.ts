import { describe, expect, it } from "vitest";
import { issueSignals, MAX_DOTTED_NAMES } from "../../src/localize/issue-signals.js";
import { localize } from "../../src/localize/localize.js";
import { py, snapshotOf } from "./support.js";

/** A small project with a few modules, so dotted names have modules to resolve against. */
const PROJECT = {
  "pkg/__init__.py": "",
  "pkg/core/__init__.py": "",
  "pkg/core/engine.py": py("def run_pipeline(data):\n    return data\n", "engine"),
  "pkg/io/ascii/qdp.py": py("class Reader:\n    def read(self, path):\n        return path\n", "qdp"),
  "pkg/util.py": py("def render(table, fmt):\n    return fmt.format(table)\n", "util"),
};

/** Issue texts made to be slow to read: each is about 100 kB, the most of an issue that is read. */
const HOSTILE: Array<[string, string]> = [
  ["`a.` x 50,000", "a.".repeat(50_000)],
  ["one dotted name of 50,001 parts", `${"a.".repeat(50_000)}a`],
  [
    "the same in backticks and a code block",
    `\`${"ab.".repeat(16_000)}x\`\n\`\`\`\n${"ab.".repeat(16_000)}x\n\`\`\``,
  ],
  ["20,000 different dotted names", Array.from({ length: 20_000 }, (_, i) => `m${i}.f${i}`).join(" ")],
  ["dotted names of many parts, repeated", `${"pkg.core.engine.".repeat(20)}x `.repeat(300)],
  ["dots, spaces and slashes", "a. /.a/ .".repeat(12_000)],
];

describe("localizing a hostile issue text is fast", () => {
  for (const [what, issue] of HOSTILE) {
    it(`${what}: under 2 s to read and rank`, async () => {
      const { snapshot } = await snapshotOf(PROJECT);
      const t0 = performance.now();
      const signals = issueSignals(issue);
      await localize(issue, snapshot, { topK: 5, topSymbols: 5 });
      const ms = performance.now() - t0;
      expect(ms, what).toBeLessThan(2000);
      expect(signals.dotted.length).toBeLessThanOrEqual(MAX_DOTTED_NAMES);
    });
  }
});

describe("dotted names read from an issue", () => {
  it("are kept in order of first mention, at most MAX_DOTTED_NAMES of them", () => {
    const names = Array.from({ length: MAX_DOTTED_NAMES + 50 }, (_, i) => `mod${i}.func${i}`);
    const s = issueSignals(`Title\n\n${names.join(" and ")} then mod0.func0 again`);
    expect(s.dotted).toEqual(names.slice(0, MAX_DOTTED_NAMES));
  });

  it("a name of more than 16 parts or 256 characters is not one: dropped, the others kept", () => {
    const long = Array.from({ length: 17 }, (_, i) => `p${i}`).join(".");
    const wide = `pkg.${"x".repeat(260)}`;
    const ok = Array.from({ length: 16 }, (_, i) => `p${i}`).join(".");
    const s = issueSignals(
      `Crash in \`pkg.core.engine.run_pipeline\`\n\n${long} ${wide} ${ok} pkg.util.render`,
    );
    expect(s.dotted).toEqual(["pkg.core.engine.run_pipeline", ok, "pkg.util.render"]);
  });

  it("rank a module named by a dotted name first, as before", async () => {
    const { snapshot } = await snapshotOf(PROJECT);
    const loc = await localize(
      "pkg.core.engine.run_pipeline fails on empty data\n\nCalling `pkg.core.engine.run_pipeline([])` raises.",
      snapshot,
      { topK: 3, topSymbols: 3 },
    );
    expect(loc.files[0].path).toBe("pkg/core/engine.py");
  });
});
