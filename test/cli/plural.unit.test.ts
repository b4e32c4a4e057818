import { describe, expect, it } from "vitest";
import { datasetScope } from "../../src/grading/scope.js";
import { normalizeTrajectory } from "../../src/inspect/normalize.js";
import { renderTrajectoryText } from "../../src/inspect/terminal-render.js";
import { plural } from "../../src/util/plural.js";

describe("counts say their noun in the right number", () => {
  it("plural", () => {
    expect([0, 1, 2].map((n) => plural(n, "instance"))).toEqual(["0 instances", "1 instance", "2 instances"]);
    expect(plural(1, "entry", "entries")).toBe("1 entry");
    expect(plural(3, "entry", "entries")).toBe("3 entries");
  });

  it("show: a trajectory of one step says `1 step`", () => {
    const view = normalizeTrajectory(
      [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: "a" },
        { role: "user", content: "o" },
      ],
      "one.traj.json",
    );
    const facts = renderTrajectoryText(view, { color: false, full: false }).split("\n")[1];
    expect(facts).toMatch(/^model \? · 1 step · /);
  });

  it("eval: a dataset of one row is `1 instance`", () => {
    expect(datasetScope("lite", "test", 1).description).toBe("the whole dataset (lite, test: 1 instance)");
  });
});
