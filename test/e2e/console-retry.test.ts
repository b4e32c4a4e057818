import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { fakeServer, SUBMIT } from "./harness.js";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "patchloop.js");

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("patchloop run on the console", () => {
  it("shows each retry wait with the reason and the time until the next try, and the reasoning is kept apart", async () => {
    const server = await fakeServer();
    server.enqueue(
      {
        type: "error",
        status: 503,
        body: { error: { message: "no capacity right now", type: "ServiceUnavailable", code: 503 } },
        headers: { "retry-after": "0.2" },
      },
      { type: "error", status: 200, body: {} },
      {
        type: "reply",
        content: "Submitting.",
        reasoning: "The repo is fine.",
        toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }],
      },
    );
    const dir = tempDir("patchloop-console-");
    const repo = join(dir, "repo");
    makeRepo(repo, { "a.py": "x = 1\n" });
    const ran = await cli([
      "run",
      "--repo",
      repo,
      "--task",
      "check it",
      "-m",
      "openai/fake",
      "--base-url",
      `${server.url}/v1`,
      "-c",
      "model.retry={max_tries: 3, initial_delay: 0.1, max_delay: 0.2}",
      "--environment",
      "local",
      "-o",
      join(dir, "out"),
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain(
      "RETRY model call 1, try 1 of 3 failed: HTTP 503: no capacity right now; next try in 0.2 s\n",
    );
    expect(ran.stdout).toMatch(
      /RETRY model call 1, try 2 of 3 failed: malformed response: no choices\[0\]\.message in \{\}; next try in 0\.\d s\n/,
    );
    expect(ran.stdout).toContain("EXIT: Submitted");
    const traj = JSON.parse(readFileSync(join(dir, "out", "repo", "repo.traj.json"), "utf8"));
    const reply = traj.messages.find((m: { role: string }) => m.role === "assistant");
    expect([reply.content, reply.reasoning, reply.extra.usage.reasoning_tokens]).toEqual([
      "Submitting.",
      "The repo is fine.",
      5,
    ]);
  });
});
