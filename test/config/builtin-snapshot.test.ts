import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDir } from "../../src/config/builtin.js";
import { readSnapshot, snapshotOf } from "../../src/config/builtin-snapshot.js";
import { parseYaml } from "../../src/config/yaml-file.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the build writes dist/configs.json", () => {
  it("with every built-in config as the YAML parser reads it (the tests' set-up built dist/)", () => {
    const files = readSnapshot(join(ROOT, "dist", "configs.json"));
    const names = readdirSync(builtinDir()).filter((f) => f.endsWith(".yaml"));
    expect(Object.keys(files ?? {}).sort()).toEqual(names.sort());
    for (const name of names) {
      const path = join(builtinDir(), name);
      const text = readFileSync(path, "utf8");
      expect(snapshotOf(path, text, files)).toStrictEqual(parseYaml(text, name));
    }
  });
});
