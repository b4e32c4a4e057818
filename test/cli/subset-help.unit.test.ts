import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { HUB_DATASETS } from "../../src/dataset/hub.js";
import { DATASET_EXTENSIONS, subsetHelp } from "../../src/dataset/subset-help.js";

/** The help of `patchloop ARGS --help`, from the command's own registration, on one line. */
async function helpOf(module: Promise<{ register: (p: Command) => void }>, path: string[]): Promise<string> {
  const program = new Command("patchloop");
  (await module).register(program);
  let cmd = program;
  for (const name of path) {
    const next = cmd.commands.find((c) => c.name() === name);
    if (!next) throw new Error(`no command ${path.join(" ")}`);
    cmd = next;
  }
  return cmd.helpInformation().replace(/\s+/g, " ");
}

describe("--subset and --dataset help name every dataset the dataset code reads", () => {
  it("the one text names each named dataset and each file type", () => {
    expect(subsetHelp()).toBe(
      "lite, verified, full, multilingual, pro, live, live-multilang, live-windows, rebench, gym, " +
        "owner/name on Hugging Face, or a .json/.jsonl/.parquet/.csv file",
    );
    for (const name of Object.keys(HUB_DATASETS)) expect(subsetHelp()).toContain(`${name},`);
    for (const ext of DATASET_EXTENSIONS) expect(subsetHelp()).toContain(ext);
  });

  it.each([
    ["swebench", import("../../src/cli/swebench.js"), ["swebench"]],
    ["localize", import("../../src/cli/localize.js"), ["localize"]],
    ["select", import("../../src/cli/select.js"), ["select"]],
    ["eval", import("../../src/cli/eval.js"), ["eval"]],
    ["images pull", import("../../src/cli/images.js"), ["images", "pull"]],
    ["config show", import("../../src/cli/config-show.js"), ["config", "show"]],
  ] as const)("patchloop %s --help", async (_name, module, path) => {
    const help = await helpOf(module, [...path]);
    expect(help).toContain(subsetHelp());
  });
});
