import { describe, expect, it } from "vitest";
import { runPatchloop } from "../support/cli.js";

/** Runs `patchloop config show ARGS` as a user would; resolves with its status and output. */
const configShow = (args: string[]) =>
  runPatchloop(["config", "show", ...args], { PLTEST_SHOW_TOKEN: "host-tok-42abc" });

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
