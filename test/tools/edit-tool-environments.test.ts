import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBwrapEnvironment } from "../../src/environments/bwrap.js";
import { createContainerEnvironment } from "../../src/environments/container.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import type { Environment } from "../../src/environments/types.js";
import { createEditToolRunner } from "../../src/tools/edit-tool/runner.js";
import { describeWithEngine, testImage } from "../support/engines.js";

/**
 * The heredoc edit-tool behaves identically on the host, in bubblewrap and in a container without
 * Node (the base image has bash and coreutils only): the agent runs it through the environment's
 * readFile / writeFile / exec. The same script of edits gives the same outputs (with the root path
 * written as ROOT) and the same bytes everywhere.
 */
const ORIGINAL = Buffer.from("def f():\r\n\treturn 'naïve – 日本'\r\n\r\ndef g():\r\n\treturn 2", "utf8");

function script(root: string): string[] {
  const file = `${root}/pkg/mod.py`;
  return [
    `edit-tool view --file ${file}`,
    `edit-tool str_replace --file ${file} << 'PATCH'\n---OLD---\n\treturn 2\n---NEW---\n\treturn 3\nPATCH`,
    `edit-tool insert --file ${file} --line 0 << 'PATCH'\nimport os\nPATCH`,
    `edit-tool str_replace --file ${file} << 'PATCH'\n---OLD---\ndef\n---NEW---\nfunction\nPATCH`,
    `edit-tool view --file ${file} --range 2:3`,
    `edit-tool undo --file ${file}`,
    `edit-tool create --file ${root}/pkg/new.md << 'EOF'\n# Title\n\`\`\`\ncode\n\`\`\`\nEOF`,
    `edit-tool view --file ${root}/pkg/missing.py`,
    `edit-tool str_replace --file ${file} << 'PATCH'\n---OLD---\nx\nPATCH`,
    `cd /tmp && edit-tool view --file ${file}`,
  ];
}

interface Outcome {
  outputs: Array<{ output: string; returncode: number }>;
  finalBytes: string;
  newFile: string;
}

async function runScript(env: Environment, root: string): Promise<Outcome> {
  await env.writeFile(`${root}/pkg/mod.py`, ORIGINAL);
  const runner = createEditToolRunner();
  const ctx = { env, timeout: 30, vision: false };
  const outputs = [];
  for (const block of script(root)) {
    const r = await runner.execute(block, ctx);
    outputs.push({ output: r.output.replaceAll(root, "ROOT"), returncode: r.returncode });
  }
  return {
    outputs,
    finalBytes: (await env.readFile(`${root}/pkg/mod.py`)).toString("hex"),
    newFile: (await env.readFile(`${root}/pkg/new.md`)).toString("utf8"),
  };
}

let reference: Outcome;
let hostDir: string;

beforeAll(async () => {
  hostDir = mkdtempSync(join(tmpdir(), "edit-tool-env-"));
  const env = createLocalEnvironment({ cwd: hostDir });
  reference = await runScript(env, hostDir);
  await env.close();
});
afterAll(() => rmSync(hostDir, { recursive: true, force: true }));

describe("edit-tool on the host", () => {
  it("edits byte-exactly, keeping CRLF, tabs, UTF-8 and the missing final newline", () => {
    expect(Buffer.from(reference.finalBytes, "hex").toString("utf8")).toBe(
      "def f():\r\n\treturn 'naïve – 日本'\r\n\r\ndef g():\r\n\treturn 3",
    );
    expect(reference.newFile).toBe("# Title\n```\ncode\n```\n");
    expect(reference.outputs.map((o) => o.returncode)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 1, 1]);
  });
});

describeWithEngine("bwrap", "edit-tool in bubblewrap", () => {
  it("gives the host's outputs and bytes", async () => {
    const dir = mkdtempSync(join("/var/tmp", "edit-tool-bwrap-"));
    const env = createBwrapEnvironment({ repoDir: dir });
    try {
      expect(await runScript(env, dir)).toEqual(reference);
    } finally {
      await env.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const engine of ["docker", "podman"] as const) {
  describeWithEngine(engine, `edit-tool in a ${engine} container without Node`, () => {
    it("gives the host's outputs and bytes", async () => {
      const env = await createContainerEnvironment({
        executable: engine,
        kind: engine,
        image: testImage(engine),
        cwd: "/tmp",
      });
      try {
        expect((await env.exec("command -v node || echo no-node")).output.trim()).toBe("no-node");
        expect(await runScript(env, "/tmp/work")).toEqual(reference);
      } finally {
        await env.close();
      }
    }, 120_000);
  });
}
