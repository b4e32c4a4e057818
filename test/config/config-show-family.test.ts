import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { runPatchloop } from "../support/cli.js";

/** Runs `patchloop config show ARGS` as a user would; resolves with its status and output. */
const configShow = (args: string[]) => runPatchloop(["config", "show", ...args]);

const QWEN =
  'model family Qwen3 (from the model name "Qwen/Qwen3-8B"): applying the qwen3 preset (configs/qwen3.yaml) under your -c layers; -c model.family=none turns this off';

describe("patchloop config show: the family from the model's name", () => {
  it("says the family in one line (stderr, and atop the config) and lists its layer", async () => {
    const r = await configShow(["-m", "openai/Qwen/Qwen3-8B", "--base-url", "http://127.0.0.1:9/v1"]);
    expect([r.code, r.stderr]).toEqual([0, `${QWEN}\n`]);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe(
      '# patchloop resolved config (layers: configs/base.yaml -> built-in config "default" -> family preset "qwen3" (from the model name) -> -m openai/Qwen/Qwen3-8B -> --base-url http://127.0.0.1:9/v1)',
    );
    expect(lines[1]).toBe(`# ${QWEN}`);
    expect(r.stdout).toContain("  family: qwen3\n");
    expect(r.stdout).toContain("  reasoning_history: chain\n");
  });

  it("model.family=none turns it off", async () => {
    const r = await configShow(["-m", "openai/Qwen/Qwen3-8B", "-c", "model.family=none"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).not.toContain("family preset");
    expect(r.stdout).toContain("  family: none\n");
  });

  it("a served alias: the family from what the server's /models lists", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data: [{ id: "coder", owned_by: "vllm", root: "google/gemma-4-26b-a4b-it" }],
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const r = await configShow(["-m", "openai/coder", "--base-url", base]);
      expect([r.code, r.stderr]).toEqual([
        0,
        'model family Gemma 4 (from the server\'s /models: "coder" is "google/gemma-4-26b-a4b-it"): applying the gemma4 preset (configs/gemma4.yaml) under your -c layers; -c model.family=none turns this off\n',
      ]);
      expect(r.stdout).toContain("  family: gemma4\n");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
