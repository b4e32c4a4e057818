import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTrajectoryFile } from "../../src/inspect/normalize.js";
import { renderTrajectoryText } from "../../src/inspect/terminal-render.js";
import { tempDir } from "../support/tmp.js";

function trajectoryFile(): string {
  const file = join(tempDir("patchloop-reasoning-"), "t.traj.json");
  const traj = {
    trajectory_format: "patchloop-1",
    info: {
      exit_status: "Submitted",
      exit_message: "",
      submission: "",
      model_stats: { api_calls: 1, prompt_tokens: 10, completion_tokens: 5, cost: 0 },
      config: {},
      versions: {},
      timing: { started_at: "", ended_at: "", wall_seconds: 1 },
    },
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "task" },
      {
        role: "assistant",
        content: "THOUGHT: list.\n\n```mswea_bash_command\nls\n```",
        reasoning: "Let me think about the files first.",
        extra: {
          actions: [{ command: "ls" }],
          usage: { prompt_tokens: 10, completion_tokens: 5, reasoning_tokens: 9 },
        },
      },
      { role: "user", content: "<returncode>0</returncode>", extra: { returncode: 0 } },
    ],
  };
  writeFileSync(file, JSON.stringify(traj));
  return file;
}

describe("patchloop show: the model's reasoning", () => {
  it("is collapsed to its length by default and shown whole with --full", async () => {
    const view = await loadTrajectoryFile(trajectoryFile());
    expect(view.steps[0].reasoning).toBe("Let me think about the files first.");
    const short = renderTrajectoryText(view, { color: false, full: false });
    expect(short).toContain("REASONING: 35 characters (--full shows them)\nTHOUGHT:");
    expect(short).not.toContain("Let me think");
    const full = renderTrajectoryText(view, { color: false, full: true });
    expect(full).toContain("REASONING:\nLet me think about the files first.\nTHOUGHT:");
  });
});
