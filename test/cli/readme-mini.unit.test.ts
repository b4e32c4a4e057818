import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgentConfig } from "../../src/cli/common.js";
import { FIXTURES } from "../support/data.js";

const README = join(import.meta.dirname, "..", "..", "README.md");
const MINI = join(FIXTURES, "mini-swe-agent", "swebench_backticks.yaml");
const FENCE = "```";

/** The flag README.md's sentence on mini-swe-agent configs says to run `swebench_backticks.yaml` with. */
function readmeFlag(): { flag: string; value: string } {
  const text = readFileSync(README, "utf8").replace(/\s+/g, " ");
  const m =
    /mini-swe-agent v2 config files load unchanged.*?`swebench_backticks\.yaml`.*?Run such a file with `(--model-class) (\S+)`/.exec(
      text,
    );
  if (!m)
    throw new Error("README.md no longer says which flag runs mini's swebench_backticks.yaml as backticks");
  return { flag: m[1], value: m[2] };
}

describe("README.md on mini-swe-agent configs: swebench_backticks.yaml and the one flag it needs", () => {
  it("mini's swebench_backticks.yaml alone runs with tool calls, and a warning says its prompts ask for a block", () => {
    const { config, warnings } = loadAgentConfig({ config: [MINI] }, "swebench", null);
    expect(config.agent.protocol).toBe("tool_calls");
    expect(warnings).toContain(
      `the prompts ask for a text block (${FENCE}mswea_bash_command or <mswea_bash_command>), but agent.protocol is tool_calls (from configs/base.yaml): the model would be told "no tool call". Set agent.protocol=backticks (mini-swe-agent: model.model_class: litellm_textbased), or change the prompts`,
    );
  });

  it("with the flag README.md names, the same file runs its fenced blocks, with no protocol warning", () => {
    const { flag, value } = readmeFlag();
    expect(flag).toBe("--model-class");
    const { config, warnings } = loadAgentConfig({ config: [MINI], modelClass: value }, "swebench", null);
    expect(config.agent.protocol).toBe("backticks");
    expect(config.agent.tools).toEqual(["bash"]);
    expect(warnings.filter((w) => /protocol/.test(w))).toEqual([]);
  });
});
