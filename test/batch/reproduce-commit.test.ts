import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reproduceInfo } from "../../src/batch/reproduce.js";
import { loadConfig } from "../../src/config/load.js";

const ROOT = join(import.meta.dirname, "..", "..");
const git = (...args: string[]) => execFileSync("git", ["-C", ROOT, ...args], { encoding: "utf8" });

describe("run.json's info.reproduce.patchloop.commit", () => {
  it("is the checkout's HEAD (read from .git), with -dirty exactly when git status shows a tracked change", async () => {
    const { config } = loadConfig({ configArgs: ["model.model_name=openai/m"], defaultConfig: "swebench" });
    const info = await reproduceInfo({
      config,
      rows: [],
      dataset: { subset: "x.jsonl", split: "test", sha256: "0" },
      askServer: false,
    });
    const dirty = git("status", "--porcelain", "--untracked-files=no").trim() !== "";
    expect(info.patchloop.commit).toBe(`${git("rev-parse", "HEAD").trim()}${dirty ? "-dirty" : ""}`);
  });
});
