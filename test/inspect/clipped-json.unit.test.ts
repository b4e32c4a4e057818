import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ClippedJsonError, clipString, readClippedJson } from "../../src/inspect/clipped-json.js";
import { loadTrajectoryFile } from "../../src/inspect/normalize.js";
import { tempDir } from "../support/tmp.js";

describe("the viewer's streamed, clipped JSON reader", () => {
  it("builds the same value as JSON.parse for ordinary documents", async () => {
    const doc = { a: 1.5, b: [true, false, null, "é😀", { c: [] }], "": { "k:,": "v" }, n: -2e-3 };
    const path = join(tempDir(), "d.json");
    writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
    expect(await readClippedJson(path)).toEqual(doc);
  });

  it("keeps the head and tail of long strings and cuts nesting past the limit", async () => {
    const path = join(tempDir(), "d.json");
    writeFileSync(path, JSON.stringify({ s: `${"a".repeat(100)}${"b".repeat(100)}`, deep: [[[[1]]]] }));
    expect(await readClippedJson(path, { maxString: 20, maxDepth: 3 })).toEqual({
      s: `${"a".repeat(10)}\n[... 180 characters left out by the viewer ...]\n${"b".repeat(10)}`,
      deep: [["[patchloop: nested deeper than 3 levels; not kept]"]],
    });
    expect(clipString("short", 20)).toBe("short");
  });

  it("reads 100,000 levels of nesting without overflowing the stack", async () => {
    const path = join(tempDir(), "d.json");
    writeFileSync(
      path,
      `{"messages": [{"role": "assistant", "content": ${"[".repeat(100_000)}${"]".repeat(100_000)}}]}`,
    );
    const doc = (await readClippedJson(path)) as { messages: Array<{ content: unknown }> };
    expect(JSON.stringify(doc).length).toBeLessThan(2000);
    expect(JSON.stringify(doc)).toContain("nested deeper than 200 levels");
  });

  it("refuses a truncated or broken file", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "cut.json"), '{"a": [1, 2');
    writeFileSync(join(dir, "bad.json"), '{"a" 1}');
    await expect(readClippedJson(join(dir, "cut.json"))).rejects.toThrow(
      new ClippedJsonError("the file ends before its JSON value does"),
    );
    await expect(readClippedJson(join(dir, "bad.json"))).rejects.toBeInstanceOf(ClippedJsonError);
  });

  it("a trajectory with an observation of 5 million characters opens with it clipped", async () => {
    const path = join(tempDir(), "t.traj.json");
    const huge = `${"x".repeat(2_500_000)}${"y".repeat(2_500_000)}`;
    writeFileSync(
      path,
      JSON.stringify({
        trajectory_format: "patchloop-1",
        info: { exit_status: "Submitted", submission: "", model_stats: { api_calls: 1 } },
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: "task" },
          { role: "user", content: huge },
        ],
      }),
    );
    const view = await loadTrajectoryFile(path);
    const text = JSON.stringify(view);
    expect(text.length).toBeLessThan(100_000);
    expect(text).toContain("[... 4950000 characters left out by the viewer ...]");
  });
});
