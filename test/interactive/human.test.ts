import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { git } from "../support/git-repo.js";
import { waitUntil } from "../support/wait-for.js";
import {
  bash,
  calcTask,
  patchloopBranches,
  requestText,
  runArgs,
  SUBMIT_COMMAND,
  treeState,
} from "./fixture.js";
import { cliInPty, KEY, type Pty } from "./pty.js";

let server: FakeLlmServer | undefined;
let pty: Pty | undefined;
afterEach(async () => {
  pty?.kill();
  pty = undefined;
  await server?.close();
  server = undefined;
});

describe("patchloop run --mode human in a terminal", () => {
  it("runs the person's commands, gives their output to the model, hands back with /yolo, and commits the patch on a branch", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(bash(SUBMIT_COMMAND, "The person fixed it; submitting."));
    const before = treeState(t.repo);
    pty = cliInPty(runArgs(t, server, "--mode", "human"), { cwd: t.dir });
    await pty.waitFor("mode: human (you type the commands; /confirm or /yolo hands back to the model)");
    await pty.waitFor("? Your command (/confirm or /yolo hands the work back to the model):");
    pty.send(`sed -i 's/a - b/a + b/' calc.py && grep -c 'a + b' calc.py${KEY.enter}`);
    await pty.waitFor("STEP 1");
    await pty.waitFor("<output>\n1\n");
    expect(server.requests).toHaveLength(0);
    await pty.waitFor("? Your command (");
    pty.send(`/yolo${KEY.enter}`);
    await pty.waitFor("mode: yolo");
    await pty.waitFor("EXIT: Submitted");
    // the model saw the person's command as a bash call and its output as the observation
    const seen = requestText(server, 0);
    expect(seen).toContain(
      `"tool_calls":[{"id":"person-1","type":"function","function":{"name":"bash","arguments":"{\\"command\\":\\"sed -i 's/a - b/a + b/' calc.py && grep -c 'a + b' calc.py\\"}"}}]`,
    );
    expect(seen).toContain('"content":"<returncode>0</returncode>\\n<output>\\n1\\n\\n</output>"');
    await pty.waitFor("? What should become of the patch?");
    pty.send(KEY.down + KEY.enter);
    const said = await pty.waitFor("committed on the branch patchloop/");
    expect(await pty.exited).toBe(0);
    expect(treeState(t.repo)).toEqual(before);
    const [branch] = patchloopBranches(t.repo);
    expect(said).toContain(`committed on the branch ${branch} (`);
    expect(git(t.repo, "show", `${branch}:calc.py`)).toBe("def add(a, b):\n    return a + b\n");
    expect(git(t.repo, "rev-parse", `${branch}~1`)).toBe(git(t.repo, "rev-parse", "HEAD"));
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
    const traj = JSON.parse(readFileSync(join(t.out, "calc", "calc.traj.json"), "utf8"));
    const typed = traj.messages.find((m: { role: string }) => m.role === "assistant");
    expect(typed.extra.raw).toEqual({
      typed_by_person: "sed -i 's/a - b/a + b/' calc.py && grep -c 'a + b' calc.py",
    });
    expect(traj.info.model_stats.api_calls).toBe(2);
  });
});

describe("Ctrl-C in an interactive run", () => {
  it("stops a model call or a command and returns to the prompt; Ctrl-C at a prompt ends the run as Interrupted with the patch kept", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(
      {
        type: "reply",
        content: "",
        toolCalls: [{ name: "bash", arguments: { command: "echo never" } }],
        delayMs: 60_000,
      },
      {
        type: "reply",
        content: "",
        toolCalls: [
          {
            name: "str_replace_editor",
            arguments: { command: "create", path: join(t.worktree, "notes.md"), file_text: "fixed later\n" },
          },
        ],
      },
      bash(`echo started; touch ${join(t.dir, "running")}; sleep 60; echo finished`),
      bash("echo next"),
    );
    const before = treeState(t.repo);
    pty = cliInPty(runArgs(t, server), { cwd: t.dir });
    // Ctrl-C while the model is thinking: the request reached the server, whose reply takes a minute
    await waitUntil("the model got the first request", () => (server?.requests.length ?? 0) >= 1);
    pty.send(KEY.ctrlC);
    await pty.waitFor("Ctrl-C: stopping this call; you get a prompt next (Ctrl-C again ends the run).");
    await pty.waitFor("? The model call was stopped. What now?");
    pty.send(KEY.enter);
    // asked again: the file creation shows as a diff and runs
    await pty.waitFor(`+++ ${t.worktree}/notes.md`);
    await pty.waitFor("? Run this action?");
    pty.send(KEY.enter);
    await pty.waitFor(`Created ${t.worktree}/notes.md (1 line, 12 bytes).`);
    // Ctrl-C while a command runs
    await pty.waitFor("? Run this action?");
    pty.send(KEY.enter);
    await waitUntil("the command runs (it made the file `running`)", () =>
      existsSync(join(t.dir, "running")),
    );
    pty.send(KEY.ctrlC);
    await pty.waitFor("? The command was stopped. What now?");
    pty.send(KEY.down + KEY.enter);
    await pty.waitFor("? Your message to the model:");
    pty.send(`it never ends${KEY.enter}`);
    await pty.waitFor("STEP 3");
    const told = requestText(server, 3);
    expect(told).toContain(
      '"content":"<returncode>-1</returncode>\\n<output>\\nstarted\\n' +
        "[The person at the keyboard stopped the command (Ctrl-C); the output above is what it printed until then.]\\n" +
        '[A message from the person at the keyboard: it never ends]\\n</output>"',
    );
    // Ctrl-C at the prompt: the run ends as Interrupted, the patch is kept
    await pty.waitFor("? Run this action?");
    pty.send(KEY.ctrlC);
    await pty.waitFor("ending the run (Interrupted); the patch is kept");
    await pty.waitFor("exit status: Interrupted");
    await pty.waitFor("? What should become of the patch?");
    pty.send(KEY.down + KEY.down + KEY.enter);
    await pty.waitFor(`discarded: ${t.repo} is as it was`);
    expect(await pty.exited).toBe(1);
    expect(treeState(t.repo)).toEqual(before);
    const patch = readFileSync(join(t.out, "calc", "calc.patch"), "utf8");
    expect(patch).toContain("+++ b/notes.md\n@@ -0,0 +1 @@\n+fixed later\n");
    // the patch applies to the person's tree
    expect(git(t.repo, "apply", "--check", join(t.out, "calc", "calc.patch"))).toBe("");
    const traj = JSON.parse(readFileSync(join(t.out, "calc", "calc.traj.json"), "utf8"));
    expect(traj.info.exit_status).toBe("Interrupted");
    expect(patchloopBranches(t.repo)).toEqual([]);
  });

  it("asks before a step limit ends the run, and goes on as far as the person allows", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(bash("echo first"), bash("echo second"), bash("echo third"));
    pty = cliInPty(runArgs(t, server, "--mode", "yolo", "-c", "agent.step_limit=1"), { cwd: t.dir });
    await pty.waitFor("STEP 1 (0 steps left)");
    await pty.waitFor(
      "? step limit reached: 1 of 1 model calls used. Go on for how many more steps? (0 ends the run)",
    );
    pty.send(`${KEY.ctrlU}1${KEY.enter}`);
    await pty.waitFor("STEP 2 (0 steps left)");
    await pty.waitFor("second");
    await pty.waitFor("? step limit reached: 2 of 1 model calls used. Go on for how many more steps?");
    pty.send(`${KEY.ctrlU}0${KEY.enter}`);
    await pty.waitFor("exit status: LimitsExceeded (step limit reached: 2 of 1 model calls used)");
    expect(await pty.exited).toBe(1);
    expect(server.pending()).toBe(1);
  });

  it("after the person raises the step limit, the cost limit still asks", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    // $0.10 a call: 100 prompt tokens at $1000 per million
    const paid = (command: string) => ({ ...bash(command), usage: { prompt_tokens: 100 } });
    server.enqueue(paid("echo first"), paid("echo second"), paid("echo third"), paid("echo fourth"));
    pty = cliInPty(
      runArgs(
        t,
        server,
        "--mode",
        "yolo",
        "-c",
        "agent.step_limit=1",
        "-c",
        "agent.cost_limit=0.25",
        "-c",
        "model.price={input_per_mtok: 1000, output_per_mtok: 0}",
      ),
      { cwd: t.dir },
    );
    await pty.waitFor("? step limit reached: 1 of 1 model calls used. Go on for how many more steps?");
    pty.send(`${KEY.ctrlU}5${KEY.enter}`);
    await pty.waitFor("third");
    await pty.waitFor("? cost limit reached: $0.3000 of $0.25. Go on for how many more US dollars?");
    pty.send(`${KEY.ctrlU}0${KEY.enter}`);
    await pty.waitFor("exit status: LimitsExceeded (cost limit reached: $0.3000 of $0.25)");
    expect(await pty.exited).toBe(1);
    expect(server.pending()).toBe(1);
  });
});
