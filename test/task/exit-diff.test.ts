import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import type { Environment } from "../../src/environments/types.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { runTask, type WorkTreeChanges } from "../../src/task/run-task.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/** `env` with every command it runs put in `seen` (the work tree's diff is the one with `read-tree`). */
function counting(env: Environment, seen: string[]): Environment {
  return {
    ...env,
    exec: (command, opts) => {
      seen.push(command);
      return env.exec(command, opts);
    },
  };
}

describe("the work tree's diff at the end of a task", () => {
  it("is taken once when the agent took it at its exit: the task runner's look at the tree reuses it", async () => {
    const dir = tempDir();
    const repo = join(dir, "repo");
    makeRepo(repo, { "app.py": "x = 1\n" });
    const { config } = loadConfig({
      configArgs: ["default", "model.model_name=scripted", "agent.step_limit=1", "environment.cwd=''"],
      defaultConfig: "default",
    });
    const commands: string[] = [];
    let changes: WorkTreeChanges | undefined;
    const outcome = await runTask({
      config,
      instanceId: "t-1",
      task: "change x",
      instance: { instance_id: "t-1", problem_statement: "change x" },
      model: () =>
        new ScriptedModel([
          { content: "edit", toolCalls: [{ name: "bash", arguments: { command: "echo 'x = 2' > app.py" } }] },
        ]),
      modelName: "scripted",
      trajectoryPath: join(dir, "t-1.traj.json"),
      open: async () => {
        const env = createLocalEnvironment({ cwd: repo });
        return { env: counting(env, commands), cleanup: () => env.close() };
      },
      onChanges: (c) => {
        changes = c;
      },
      signal: new AbortController().signal,
    });
    expect(outcome.exit_status).toBe("LimitsExceeded");
    expect(outcome.patch).toContain("-x = 1\n+x = 2\n");
    expect(changes).toEqual({ patch: outcome.patch });
    expect(commands.filter((c) => c.includes(" read-tree "))).toHaveLength(1);
  });
});
