import { describe, expect, it } from "vitest";
import { AgentTemplates } from "../../src/agent/templates.js";
import { loadConfig } from "../../src/config/load.js";
import { StrictTemplate } from "../../src/config/template.js";
import { budgetSteps } from "../../src/config/template-vars.js";

const recipe = (limit: number) =>
  loadConfig({
    configArgs: ["swebench_edittool_budget", `agent.step_limit=${limit}`],
    defaultConfig: "default",
  }).config;

/** The BUDGET paragraph of the system message and the status line of the observation at each phase boundary. */
function budgetText(limit: number): string {
  const config = recipe(limit);
  const t = new AgentTemplates(config, "(task)", { repo: "o/r" }, "/testbed");
  const system = t.system(t.vars(0, 0, 0));
  const budget = system.slice(system.indexOf("BUDGET:"), system.indexOf("An unsubmitted"));
  const b = budgetSteps(config.agent);
  const steps = [
    ...new Set([1, b.explore!, b.fix_by!, b.submit_by! - 1, b.submit_by!, b.final! - 1, b.final!, limit]),
  ];
  const lines = steps.map((step) => {
    const vars = t.vars(step, 0, 0);
    const text = t.observation.render({
      ...vars,
      output: { output: "", returncode: 0, exception_info: "", timed_out: false },
    });
    return text.trimEnd().split("\n").at(-1);
  });
  return `${budget.trim()}\n${lines.join("\n")}`;
}

describe("the budget prompt at any step limit", () => {
  it("phases are fractions of the limit: explore 15%, fix by 40%, verify and submit by 60%, submit now from 90%", () => {
    const at = (limit: number) => Object.values(budgetSteps(recipe(limit).agent));
    expect(at(12)).toEqual([2, 5, 7, 11]);
    expect(at(30)).toEqual([5, 12, 18, 27]);
    expect(at(100)).toEqual([15, 40, 60, 90]);
    expect(at(250)).toEqual([38, 100, 150, 225]);
    expect(at(3)).toEqual([1, 1, 2, 3]);
    expect(Object.values(budgetSteps(recipe(0).agent))).toEqual([null, null, null, null]);
  });

  it("12 steps", () => {
    expect(budgetText(12)).toMatchInlineSnapshot(`
      "BUDGET: you have 12 steps. Spend about 2 exploring and reproducing, have your fix in
      place by step 5, and verify and submit by step 7. Every observation tells you how many steps are left.
      [step 1 of 12: 11 left]
      [step 2 of 12: 10 left]
      [step 5 of 12: 7 left]
      [step 6 of 12: 6 left]
      [step 7 of 12: 5 left; you should be verifying your fix now]
      [step 10 of 12: 2 left; you should be verifying your fix now]
      [step 11 of 12: 1 left; submit now]
      [step 12 of 12: 0 left; submit now]"
    `);
  });

  it("30 steps", () => {
    expect(budgetText(30)).toMatchInlineSnapshot(`
      "BUDGET: you have 30 steps. Spend about 5 exploring and reproducing, have your fix in
      place by step 12, and verify and submit by step 18. Every observation tells you how many steps are left.
      [step 1 of 30: 29 left]
      [step 5 of 30: 25 left]
      [step 12 of 30: 18 left]
      [step 17 of 30: 13 left]
      [step 18 of 30: 12 left; you should be verifying your fix now]
      [step 26 of 30: 4 left; you should be verifying your fix now]
      [step 27 of 30: 3 left; submit now]
      [step 30 of 30: 0 left; submit now]"
    `);
  });

  it("100 steps", () => {
    expect(budgetText(100)).toMatchInlineSnapshot(`
      "BUDGET: you have 100 steps. Spend about 15 exploring and reproducing, have your fix in
      place by step 40, and verify and submit by step 60. Every observation tells you how many steps are left.
      [step 1 of 100: 99 left]
      [step 15 of 100: 85 left]
      [step 40 of 100: 60 left]
      [step 59 of 100: 41 left]
      [step 60 of 100: 40 left; you should be verifying your fix now]
      [step 89 of 100: 11 left; you should be verifying your fix now]
      [step 90 of 100: 10 left; submit now]
      [step 100 of 100: 0 left; submit now]"
    `);
  });

  it("250 steps", () => {
    expect(budgetText(250)).toMatchInlineSnapshot(`
      "BUDGET: you have 250 steps. Spend about 38 exploring and reproducing, have your fix in
      place by step 100, and verify and submit by step 150. Every observation tells you how many steps are left.
      [step 1 of 250: 249 left]
      [step 38 of 250: 212 left]
      [step 100 of 250: 150 left]
      [step 149 of 250: 101 left]
      [step 150 of 250: 100 left; you should be verifying your fix now]
      [step 224 of 250: 26 left; you should be verifying your fix now]
      [step 225 of 250: 25 left; submit now]
      [step 250 of 250: 0 left; submit now]"
    `);
  });

  it("at 100 steps the status line is the 26B run's exactly, at every step", () => {
    const config = recipe(100);
    const t = new AgentTemplates(config, "(task)", { repo: "o/r" }, "/testbed");
    const original = new StrictTemplate(
      "[step {{ step }} of {{ step_limit }}: {{ steps_left }} left{% if steps_left <= 40 and steps_left > 10 %}; you should be verifying your fix now{% elif steps_left <= 10 %}; submit now{% endif %}]",
      "original",
    );
    for (let step = 0; step <= 100; step++) {
      const vars = t.vars(step, 0, 0);
      const now = t.observation
        .render({ ...vars, output: { output: "", returncode: 0, exception_info: "", timed_out: false } })
        .trimEnd()
        .split("\n")
        .at(-1);
      expect(now).toBe(original.render(vars));
    }
  });

  it("12 steps: the first step does not already say to verify", () => {
    expect(
      budgetText(12)
        .split("\n")
        .find((l) => l.startsWith("[step 1 of 12")),
    ).toBe("[step 1 of 12: 11 left]");
  });
});
