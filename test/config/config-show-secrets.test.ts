import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "patchloop.js");

/** Runs `patchloop config show ARGS` as a user would; resolves with its status and output. */
function configShow(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "config", "show", ...args], {
      env: { ...process.env, PLTEST_SHOW_TOKEN: "host-tok-42abc" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c;
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("patchloop config show: the layers line", () => {
  it("masks the config's secrets, host tokens and URL credentials in the layer sources as in the YAML", async () => {
    const r = await configShow([
      "-c",
      'model.model_kwargs={extra_headers: {Authorization: "Bearer sk-show-123456"}, user: "host-tok-42abc"}',
      "--base-url",
      "http://u:pw-show-9876@127.0.0.1:9/v1",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      '# patchloop resolved config (layers: configs/base.yaml -> built-in config "default" -> ' +
        '-c model.model_kwargs={extra_headers: {Authorization: "***"}, user: "***"} -> ' +
        "--base-url http://***@127.0.0.1:9/v1)",
    );
    for (const secret of ["sk-show-123456", "pw-show-9876", "host-tok-42abc"])
      expect(r.stdout).not.toContain(secret);
    expect(r.stdout).toContain("  base_url: http://***@127.0.0.1:9/v1\n");
    // The YAML is scrubbed like run.json's config: a host token in a non-secret key is masked too.
    expect(r.stdout).toContain(
      '  model_kwargs:\n    extra_headers:\n      Authorization: "***"\n    user: "***"\n',
    );
  });
});
