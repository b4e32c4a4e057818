import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDir } from "../../src/config/builtin.js";
import { readSnapshot, snapshotOf, writeBuiltinSnapshot } from "../../src/config/builtin-snapshot.js";
import { parseYaml } from "../../src/config/yaml-file.js";
import { tempDir } from "../support/tmp.js";

const yamlFiles = () => readdirSync(builtinDir()).filter((f) => f.endsWith(".yaml"));

describe("the built-in configs' snapshot (dist/configs.json)", () => {
  it("holds what the YAML parser makes of every built-in config, and serves it only for the same text", () => {
    const file = join(tempDir(), "configs.json");
    writeBuiltinSnapshot(file, parseYaml);
    const files = readSnapshot(file);
    expect(Object.keys(files ?? {}).sort()).toEqual(yamlFiles().sort());
    for (const name of yamlFiles()) {
      const path = join(builtinDir(), name);
      const text = readFileSync(path, "utf8");
      expect(snapshotOf(path, text, files)).toStrictEqual(parseYaml(text, name));
      // an edited file (its text no longer has the recorded hash) is left to the parser
      expect(snapshotOf(path, `${text}\n# edited\n`, files)).toBeUndefined();
    }
    // only built-ins: a file elsewhere with the same name and text is parsed
    const base = readFileSync(join(builtinDir(), "base.yaml"), "utf8");
    expect(snapshotOf(join(tempDir(), "base.yaml"), base, files)).toBeUndefined();
  });

  it("gives each caller its own copy", () => {
    const file = join(tempDir(), "configs.json");
    writeBuiltinSnapshot(file, parseYaml);
    const files = readSnapshot(file);
    const path = join(builtinDir(), "base.yaml");
    const text = readFileSync(path, "utf8");
    const first = snapshotOf(path, text, files) as Record<string, Record<string, unknown>>;
    first.agent.step_limit = -1;
    expect((snapshotOf(path, text, files) as typeof first).agent.step_limit).not.toBe(-1);
  });

  it("leaves out a file the parser rejects, and reads nothing from a file that is not a snapshot", () => {
    const file = join(tempDir(), "configs.json");
    writeBuiltinSnapshot(file, (text, label) => {
      if (label === "configs/base.yaml") throw new Error("broken");
      return parseYaml(text, label);
    });
    const files = readSnapshot(file);
    expect(Object.keys(files ?? {})).not.toContain("base.yaml");
    expect(Object.keys(files ?? {})).toContain("default.yaml");
    const bad = join(tempDir(), "bad.json");
    writeFileSync(bad, '{"format": 2, "files": {}}');
    expect(readSnapshot(bad)).toBeNull();
    writeFileSync(bad, "not json");
    expect(readSnapshot(bad)).toBeNull();
    expect(readSnapshot(join(tempDir(), "absent.json"))).toBeNull();
  });
});
