import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { bashReply, fakeServer, requestMessages, runTask, SUBMIT } from "./harness.js";

const MB = 1024 * 1024;
const SEE_ALL =
  "To see all of it, write it to a file (command > out.txt 2>&1) and read parts with head, tail, grep -n or sed -n.";

/** The content of the tool message that reported the first command (in the second request). */
function firstObservation(messages: Array<Record<string, unknown>>): unknown {
  expect(messages[3]).toMatchObject({ role: "tool" });
  return messages[3].content;
}

describe("commands that misbehave: the loop goes on and memory stays bounded", () => {
  it("a command printing 1 GB: the observation keeps head and tail, says what was left out; RSS stays bounded", async () => {
    const server = await fakeServer();
    server.enqueue(bashReply("yes | head -c 1000000000"), bashReply(SUBMIT));
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 50);
    const run = await runTask(server).finally(() => clearInterval(sampler));
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    expect(run.result.exitStatus).toBe("Submitted");
    expect(rssPeak - rssBefore).toBeLessThan(300 * MB);

    // capture keeps 5 MB of head and 5 MB of tail; the tool shows 5000 characters of each
    const captureNote = "\n[... 990000000 bytes of output dropped by the capture limit ...]\n";
    const captured = 10_000_000 + captureNote.length;
    const shown = "y\n".repeat(2500);
    const clipNote = `\n[... ${captured - 10_000} characters left out of the middle of this output (${captured} in all). ${SEE_ALL} ...]\n`;
    expect(firstObservation(requestMessages(server, 1))).toBe(
      `<returncode>0</returncode>\n<output>\n${shown}${clipNote}${shown}\n</output>`,
    );
    expect(run.traj.messages[3].extra).toMatchObject({ returncode: 0, timed_out: false });
  });

  it("a command that never ends: stopped after environment.timeout with its partial output, then the task goes on", async () => {
    const marker = `1000.${process.pid}`;
    const server = await fakeServer();
    server.enqueue(bashReply(`echo started; sleep ${marker}`), bashReply(SUBMIT));
    const run = await runTask(server, { configArgs: ["environment.timeout=2"] });
    expect(run.result.exitStatus).toBe("Submitted");
    expect(run.elapsedMs).toBeLessThan(10_000);
    expect(firstObservation(requestMessages(server, 1))).toBe(
      [
        "The command was stopped after 2 seconds; this is what it printed until then:",
        "<returncode>-1</returncode>",
        "<error>the command timed out after 2 seconds and was stopped</error>",
        "<output>",
        "started",
        "[The command timed out after 2 seconds and was stopped; the output above is what it printed until then. " +
          "Make it faster (a smaller input, fewer tests) or split it into steps.]",
        "</output>",
      ].join("\n"),
    );
    expect(run.traj.messages[3].extra).toMatchObject({ returncode: -1, timed_out: true });
    // the whole process group was killed: no `sleep` is left behind
    const left = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l.includes(`sleep ${marker}`));
    expect(left).toEqual([]);
  });
});
