import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runSelect } from "../../src/cli/select.js";
import type { SelectionRecord } from "../../src/select/record.js";
import { BASE_IMAGE, describeWithEngine } from "../support/engines.js";
import { buildSelectFixture, type SelectFixture, selectRow, trajectory } from "./fixture.js";

// The image test/swebench/eval-docker.test.ts builds (same text, same tag): Debian's python3 and pytest.
const PYTHON_DOCKERFILE = `FROM ${BASE_IMAGE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-pytest git patch >/dev/null && rm -rf /var/lib/apt/lists/*
`;
const PYTHON_IMAGE = `patchloop-test/eval-python:${createHash("sha256").update(PYTHON_DOCKERFILE).digest("hex").slice(0, 12)}`;
const ID = "acme__calc-1";

function docker(args: string[], input?: string): string {
  const r = spawnSync("docker", args, { input, encoding: "utf8", timeout: 600_000 });
  if (r.status !== 0) throw new Error(`docker ${args.join(" ")} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

describeWithEngine("docker", "patchloop select in the instance's container (image built here)", () => {
  let f: SelectFixture;
  let root: string;
  let image: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-select-docker-"));
    f = buildSelectFixture(root);
    if (spawnSync("docker", ["image", "inspect", PYTHON_IMAGE], { stdio: "ignore" }).status !== 0) {
      docker(["build", "--network", "host", "-q", "-t", PYTHON_IMAGE, "-"], PYTHON_DOCKERFILE);
    }
    // An SWE-bench-style instance image: the repository at /testbed, a conda activate script.
    const context = join(root, "image");
    cpSync(join(f.reposDir, "acme__calc"), join(context, "repo"), { recursive: true });
    writeFileSync(
      join(context, "Dockerfile"),
      `FROM ${PYTHON_IMAGE}
COPY repo /testbed
RUN mkdir -p /opt/miniconda3/bin && printf 'conda() { :; }\\n' > /opt/miniconda3/bin/activate
ENV PYTHONDONTWRITEBYTECODE=1
WORKDIR /testbed
`,
    );
    image = `patchloop-test/select-instance:${Date.now().toString(36)}`;
    docker(["build", "-q", "-t", image, context]);
  }, 600_000);

  afterAll(() => {
    if (image) spawnSync("docker", ["rmi", "-f", image], { stdio: "ignore" });
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("runs the regression tests in the container: the candidate that breaks a passing test loses", async () => {
    const dataset = join(root, "rows.json");
    writeFileSync(
      dataset,
      JSON.stringify([
        selectRow(f, { image_name: image, test_cmd: "python3 -m pytest -rA -p no:cacheprovider" }),
      ]),
    );
    const dir = join(root, "run");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "run.json"),
      JSON.stringify({ info: { dataset: { subset: dataset, split: "test" }, selection: {} } }),
    );
    [f.breaksLow, f.breaksLowSpaced, f.good, f.stale].forEach((p, i) => {
      mkdirSync(join(dir, ID, `attempt-${i + 1}`), { recursive: true });
      writeFileSync(join(dir, ID, `attempt-${i + 1}`, `${ID}.traj.json`), trajectory(ID, p));
    });
    const err: string[] = [];
    const code = await runSelect(
      dir,
      { workers: "1", environment: "docker", config: [] },
      { out: () => {}, err: (t) => err.push(t) },
    );
    expect(err.join("")).toMatch(/^\[1\/1\] acme__calc-1: candidate 2: /);
    expect(code).toBe(0);
    const rec = JSON.parse(readFileSync(join(dir, "selection.jsonl"), "utf8")) as SelectionRecord;
    expect(rec.problems).toEqual([]);
    expect(rec.regression).toEqual({ files: ["tests/test_ops.py"], passing_at_base: 3 });
    expect(rec.candidates.map((c) => [c.status, c.regression?.broke])).toEqual([
      ["patch", ["tests/test_ops.py::test_clamp_low"]],
      ["patch", ["tests/test_ops.py::test_clamp_low"]],
      ["patch", []],
      ["does_not_apply", undefined],
    ]);
    expect(JSON.parse(readFileSync(join(dir, "preds.json"), "utf8"))[ID].model_patch).toBe(f.good);
  });
});
