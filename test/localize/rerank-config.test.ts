import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { localizeForAgent } from "../../src/localize/agent-hook.js";
import { namedCandidates, rerankFiles } from "../../src/localize/rerank.js";
import type { LocalizedFile } from "../../src/localize/types.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

const FILES: LocalizedFile[] = ["a/x.py", "b/x.py", "c.py", "d.py"].map((path, i) => ({
  path,
  score: 10 - i,
  why: [`reason ${i}`],
}));
const template = loadConfig({ configArgs: [], defaultConfig: "default" }).config.agent.localize.rerank
  .template;

describe("the optional model re-rank", () => {
  it("puts the files the reply names first, in its order, and records the call's cost", async () => {
    const model = new ScriptedModel([
      {
        content: "Most likely:\nd.py\n- b/x.py (the parser)\n",
        usage: { prompt_tokens: 120, completion_tokens: 9 },
        cost: 0.002,
      },
    ]);
    const r = await rerankFiles(model, "the issue", FILES, { candidates: 3, template });
    expect(r.files.map((f) => f.path)).toEqual(["b/x.py", "a/x.py", "c.py", "d.py"]);
    expect(r.files[0].why).toEqual(["re-ranked by the model: 2 -> 1", "reason 1"]);
    expect(r.files[1].why).toEqual(["re-ranked by the model: 1 -> 2", "reason 0"]);
    // d.py was not a candidate (only the first 3 are): its mention is ignored and it keeps its place
    expect(r.record).toEqual({
      model_calls: 1,
      prompt_tokens: 120,
      completion_tokens: 9,
      cost: 0.002,
      order: ["b/x.py"],
    });
    const prompt = String(model.calls[0].messages[0].content);
    expect(prompt).toContain("<issue>\nthe issue\n</issue>");
    expect(prompt).toContain(
      "These 3 files were found by a search, with the reasons it gave:\na/x.py: reason 0\nb/x.py: reason 1\nc.py: reason 2\n",
    );
  });

  it("keeps the ranking when the reply names no candidate or the call fails (a hostile or broken model)", async () => {
    const made = new ScriptedModel([{ content: "src/secret.py\n../../etc/passwd\nrm -rf /" }]);
    const r1 = await rerankFiles(made, "t", FILES, { candidates: 4, template });
    expect(r1.files).toEqual(FILES);
    expect(r1.record.error).toBe("the reply named none of the candidates: ranking kept");
    const failing = new ScriptedModel([{ error: "fatal", message: "HTTP 400: bad request" }]);
    const r2 = await rerankFiles(failing, "t", FILES, { candidates: 4, template });
    expect(r2.files).toEqual(FILES);
    expect(r2.record).toEqual({
      model_calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost: 0,
      order: [],
      error: "the re-rank call failed: HTTP 400: bad request",
    });
  });

  it("matches the longest candidate path on a line", () => {
    expect(namedCandidates("pkg/a/x.py\nx.py", ["x.py", "a/x.py", "pkg/a/x.py"])).toEqual([
      "pkg/a/x.py",
      "x.py",
    ]);
  });

  it("runs before step 1 when agent.localize.rerank is enabled; a failure leaves an empty ranking and an error", async () => {
    const repo = `${tempDir()}/r`;
    makeRepo(repo, {
      "calc.py": "def add(a, b):\n    return a - b\n",
      "other.py": "def mul(a, b):\n    return a * b\n",
    });
    const { config } = loadConfig({
      configArgs: ["default", "agent.localize.enabled=true", "agent.localize.rerank.enabled=true"],
      defaultConfig: "default",
    });
    const env = createLocalEnvironment({ cwd: repo });
    try {
      const model = new ScriptedModel([{ content: "other.py\ncalc.py", cost: 0.01 }]);
      const loc = await localizeForAgent(config, env, "`add` subtracts instead of adding; `mul` is fine", {
        model,
      });
      expect(loc?.record.files.map((f) => f.path)).toEqual(["other.py", "calc.py"]);
      expect(loc?.record.rerank?.cost).toBe(0.01);
      expect(loc?.vars.text).toMatch(/^1\. other\.py \(re-ranked by the model: 2 -> 1; /);
      const gone = createLocalEnvironment({ cwd: `${tempDir()}/missing` });
      const failed = await localizeForAgent(config, gone, "x", {});
      expect(failed?.record.files).toEqual([]);
      expect(failed?.record.error).toMatch(
        /^localization failed: cannot list the files of .*missing in the local environment/,
      );
      expect(failed?.vars).toMatchObject({ enabled: true, text: "", files: [], error: failed?.record.error });
      await gone.close();
    } finally {
      await env.close();
    }
  });
});

describe("the built-in config with localization", () => {
  it("is the 26B recipe with agent.localize on and the ranking in the instance template, nothing else", () => {
    const load = (name: string) => loadConfig({ configArgs: [name], defaultConfig: "default" }).config;
    const recipe = load("swebench_edittool_budget");
    const variant = load("swebench_edittool_budget_localize");
    expect(variant.agent.localize).toEqual({ ...recipe.agent.localize, enabled: true });
    expect(variant.agent.instance_template).toContain("{{ localization.text }}");
    const strip = (c: typeof recipe) => ({
      ...c,
      agent: {
        ...c.agent,
        localize: null,
        instance_template: c.agent.instance_template.replace(
          /\{% if localization\.text %\}[\s\S]*?\{% endif %\}/,
          "",
        ),
      },
    });
    expect(strip(variant)).toEqual(strip(recipe));
  });
});
