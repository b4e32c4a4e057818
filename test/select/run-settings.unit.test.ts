import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRunSettings, runConfigLayer, withRunSettings } from "../../src/cli/run-settings.js";

/** What `select DIR` and `eval DIR` take from run.json (src/cli/run-settings.ts). */
describe("run settings of a run folder", () => {
  const root = mkdtempSync(join(tmpdir(), "patchloop-run-settings-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const folder = (runJson: unknown): string => {
    const dir = mkdtempSync(join(root, "run-"));
    writeFileSync(join(dir, "run.json"), typeof runJson === "string" ? runJson : JSON.stringify(runJson));
    return dir;
  };

  it("reads the environment class, the machine facts and the config sections; masked values are left out", () => {
    const dir = folder({
      config: {
        environment: { environment_class: "bwrap", env: { GITHUB_TOKEN: "***", LANG: "C.UTF-8" } },
        run: { select: { budget: 40 }, attempts: 3 },
        model: { model_name: "openai/m", api_key: "***" },
      },
      info: { machine: { repos_dir: "/data/repos", python: null, specs: "/data/specs.yaml" } },
    });
    const s = readRunSettings(dir);
    expect(s).toEqual({
      path: join(dir, "run.json"),
      environmentClass: "bwrap",
      reposDir: "/data/repos",
      specs: "/data/specs.yaml",
      sections: {
        environment: { environment_class: "bwrap", env: { LANG: "C.UTF-8" } },
        select: { budget: 40 },
        model: { model_name: "openai/m" },
      },
    });
    expect(runConfigLayer(s, ["environment"])).toEqual({
      source: `${join(dir, "run.json")} (the run's config)`,
      data: { environment: { environment_class: "bwrap", env: { LANG: "C.UTF-8" } } },
    });
    expect(runConfigLayer(s, ["select"])?.data).toEqual({ run: { select: { budget: 40 } } });
    // flags win; what they leave out comes from the run
    expect(withRunSettings({ workers: "1", environment: "local", python: "/usr/bin/python3" }, s)).toEqual({
      workers: "1",
      environment: "local",
      reposDir: "/data/repos",
      python: "/usr/bin/python3",
      specs: "/data/specs.yaml",
    });
  });

  it("an older run.json (no info.machine), an unreadable one and none give what they have, nothing more", () => {
    const old = readRunSettings(
      folder({ config: { environment: { environment_class: "local" } }, info: {} }),
    );
    expect(old.environmentClass).toBe("local");
    expect(old.reposDir).toBeUndefined();
    expect(readRunSettings(folder("{ not json"))).toEqual({ sections: {} });
    const none = mkdtempSync(join(root, "none-"));
    expect(readRunSettings(none)).toEqual({ sections: {} });
    expect(runConfigLayer({ sections: {} }, ["environment", "select", "model"])).toBeUndefined();
    expect(withRunSettings({ workers: "2" }, { sections: {} })).toEqual({
      workers: "2",
      environment: undefined,
      reposDir: undefined,
      python: undefined,
      specs: undefined,
    });
  });
});
