import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { tempDir } from "../support/tmp.js";
import { fakeServer, runTask, SUBMIT, textReply } from "./harness.js";

/** A mini-swe-agent v2 style config (written here, in mini's shape and keys). */
function miniConfig(modelLines: string[], actionExample: string): string {
  const dir = tempDir("patchloop-mini-");
  const file = join(dir, "mini_textbased.yaml");
  writeFileSync(
    file,
    [
      "agent:",
      "  system_template: |",
      "    You are a helpful assistant that can interact with a computer.",
      "    Your response must contain exactly ONE bash code block with ONE command, like this:",
      `    ${actionExample}`,
      "  instance_template: |",
      "    Please solve this issue: {{task}}",
      "    When done, run: echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
      "  step_limit: 10",
      "  cost_limit: 3.",
      "environment:",
      "  environment_class: local",
      "model:",
      ...modelLines,
      "  observation_template: |",
      "    <returncode>{{output.returncode}}</returncode>",
      "    <output>{{output.output}}</output>",
      "  format_error_template: |",
      "    Please always provide EXACTLY ONE action, found {{actions|length}} actions.",
      "",
    ].join("\n"),
  );
  return file;
}

const FENCE = "```";
const fix = "sed -i 's/a - b/a + b/' app.py";

describe("mini-swe-agent text-based configs", () => {
  it("model_class: litellm_textbased runs the fenced block the prompt asks for, and the run submits", async () => {
    const file = miniConfig(
      ["  model_class: litellm_textbased", "  model_kwargs: {drop_params: true, temperature: 0.0}"],
      `${FENCE}mswea_bash_command\n    ls\n    ${FENCE}`,
    );
    const { warnings } = loadConfig({ configArgs: [file], defaultConfig: "default" });
    expect(warnings).toEqual([
      `config key model.model_kwargs.drop_params (from ${file}) is a mini-swe-agent key that patchloop ignores: a litellm option; patchloop sends model_kwargs unchanged and never sends this one`,
    ]);
    const server = await fakeServer();
    server.enqueue(
      textReply(`THOUGHT: fix it.\n\n${FENCE}mswea_bash_command\n${fix}\n${FENCE}`),
      textReply(`THOUGHT: done.\n\n${FENCE}mswea_bash_command\n${SUBMIT}\n${FENCE}`),
    );
    const run = await runTask(server, { configArgs: [file] });
    expect(run.config.agent.protocol).toBe("backticks");
    expect(run.config.agent.tools).toEqual(["bash"]);
    expect(run.result.exitStatus).toBe("Submitted");
    expect(run.result.submission).toContain("+    return a + b");
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body.tools).toBeUndefined();
  });

  it("an XML action_regex (mini's swebench_xml style) runs the tagged command, and the run submits", async () => {
    const file = miniConfig(
      ["  model_class: litellm_textbased", "  action_regex: <mswea_bash_command>(.*?)</mswea_bash_command>"],
      "<mswea_bash_command>ls</mswea_bash_command>",
    );
    const { warnings } = loadConfig({ configArgs: [file], defaultConfig: "default" });
    expect(warnings).toEqual([]);
    const server = await fakeServer();
    server.enqueue(
      textReply("I will look first.\n<mswea_bash_command>\nls && cat app.py\n</mswea_bash_command>"),
      textReply(
        `Two at once: <mswea_bash_command>${fix}</mswea_bash_command> <mswea_bash_command>ls</mswea_bash_command>`,
      ),
      textReply(`Fixing.\n<mswea_bash_command>${fix}</mswea_bash_command>`),
      textReply(`<mswea_bash_command>${SUBMIT}</mswea_bash_command>`),
    );
    const run = await runTask(server, { configArgs: [file] });
    expect(run.result.exitStatus).toBe("Submitted");
    expect(run.result.submission).toContain("+    return a + b");
    const texts = run.traj.messages.map((m) => (typeof m.content === "string" ? m.content : ""));
    expect(texts[3]).toContain("def add(a, b):");
    // The format error renders mini's template with the actions that were found.
    expect(texts[5]).toBe("Please always provide EXACTLY ONE action, found 2 actions.");
  });

  it("a prompt that asks for a block while the protocol is tool_calls is said before the first call", () => {
    const file = miniConfig(
      ["  model_kwargs: {temperature: 0.0}"],
      `${FENCE}mswea_bash_command\n    ls\n    ${FENCE}`,
    );
    const { warnings } = loadConfig({ configArgs: [file], defaultConfig: "default" });
    expect(warnings).toEqual([
      `the prompts ask for a text block (${FENCE}mswea_bash_command or <mswea_bash_command>), but agent.protocol is tool_calls (from configs/base.yaml): the model would be told "no tool call". Set agent.protocol=backticks (mini-swe-agent: model.model_class: litellm_textbased), or change the prompts`,
    ]);
  });

  it("the reverse: backticks while the prompts never show the block", () => {
    const { warnings } = loadConfig({
      configArgs: ["agent.protocol=backticks", "agent.tools=[bash]"],
      defaultConfig: "default",
    });
    expect(warnings).toEqual([
      `agent.protocol is backticks (from -c agent.protocol=backticks), which expects a ${FENCE}mswea_bash_command block, but neither the system nor the instance template shows one; the model may not know the format`,
    ]);
  });

  it("model_class names: tool-call classes keep tool_calls, an explicit agent.protocol wins with a warning, unknown ones warn", () => {
    const load = (...args: string[]) => loadConfig({ configArgs: args, defaultConfig: "default" });
    expect(load("model.model_class=litellm").config.agent.protocol).toBe("tool_calls");
    expect(
      load(
        "model.model_class=minisweagent.models.openrouter_textbased_model.OpenRouterTextbasedModel",
        "swebench_backticks",
      ).config.agent.protocol,
    ).toBe("backticks");
    const clash = load("agent.protocol=tool_calls", "model.model_class=litellm_textbased");
    expect(clash.config.agent.protocol).toBe("tool_calls");
    expect(clash.warnings[0]).toBe(
      "model.model_class litellm_textbased (from -c model.model_class=litellm_textbased) means agent.protocol=backticks, but agent.protocol=tool_calls is set by -c agent.protocol=tool_calls; that wins",
    );
    expect(load("model.model_class=my.Custom").warnings[0]).toMatch(
      /^config key model.model_class \(from -c model.model_class=my.Custom\) is "my.Custom", a mini-swe-agent model class patchloop does not know; ignored/,
    );
  });

  it("a misspelt sampling parameter in model_kwargs gets the closest known one", () => {
    const { warnings } = loadConfig({
      configArgs: ["model.model_kwargs={temprature: 0.2, top_k: 20}"],
      defaultConfig: "default",
    });
    expect(warnings).toEqual([
      "model.model_kwargs.temprature (from -c model.model_kwargs={temprature: 0.2, top_k: 20}) is not a request field of OpenAI, vLLM, SGLang, llama.cpp, Ollama or Anthropic: did you mean temperature?; it is sent as it is and the server may ignore it",
    ]);
  });
});
