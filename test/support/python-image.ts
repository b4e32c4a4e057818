import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASE_IMAGE } from "./engines.js";

/** Debian's python3 and pytest on the CI base image; built once per engine state (tag = content hash). */
const PYTHON_DOCKERFILE = `FROM ${BASE_IMAGE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-pytest git patch >/dev/null && rm -rf /var/lib/apt/lists/*
`;
export const PYTHON_IMAGE = `patchloop-test/eval-python:${createHash("sha256").update(PYTHON_DOCKERFILE).digest("hex").slice(0, 12)}`;

/** `docker ARGS` (stdin `input`), its stdout; a failure throws with its output. */
export function docker(args: string[], input?: string): string {
  const r = spawnSync("docker", args, { input, encoding: "utf8", timeout: 600_000 });
  if (r.status !== 0) throw new Error(`docker ${args.join(" ")} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Builds PYTHON_IMAGE unless the engine has it (the package mirror through the host's network: the engine has no bridge). */
export function ensurePythonImage(): void {
  if (spawnSync("docker", ["image", "inspect", PYTHON_IMAGE], { stdio: "ignore" }).status !== 0)
    docker(["build", "--network", "host", "-q", "-t", PYTHON_IMAGE, "-"], PYTHON_DOCKERFILE);
}

/**
 * An SWE-bench-style instance image over PYTHON_IMAGE, tagged `name:<time>`: the repository at
 * `repo` copied to /testbed, a conda activate script that does nothing. Built from `context`.
 */
export function buildTestbedImage(repo: string, context: string, name: string): string {
  ensurePythonImage();
  cpSync(repo, join(context, "repo"), { recursive: true });
  writeFileSync(
    join(context, "Dockerfile"),
    `FROM ${PYTHON_IMAGE}
COPY repo /testbed
RUN mkdir -p /opt/miniconda3/bin && printf 'conda() { :; }\\n' > /opt/miniconda3/bin/activate
ENV PYTHONDONTWRITEBYTECODE=1
WORKDIR /testbed
`,
  );
  const image = `${name}:${Date.now().toString(36)}`;
  docker(["build", "-q", "-t", image, context]);
  return image;
}
