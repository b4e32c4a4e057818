import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBwrapEnvironment } from "../src/environments/bwrap.js";
import { createContainerEnvironment } from "../src/environments/container.js";
import { createLocalEnvironment } from "../src/environments/local.js";
import type { Environment } from "../src/environments/types.js";

const now = () => Number(process.hrtime.bigint()) / 1e6;
const COMMANDS = ["true", "echo hi"];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function rawBash(command: string): Promise<void> {
  return new Promise((resolve) => {
    const c = spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
    c.stdout.resume();
    c.stderr.resume();
    c.on("close", () => resolve());
  });
}

async function timeRuns(runs: number, once: () => Promise<unknown>): Promise<number> {
  await once(); // warm-up: first exec of an engine pays for caches
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = now();
    await once();
    times.push(now() - t0);
  }
  return Math.round(median(times) * 100) / 100;
}

function engineReady(exe: string, image: string): string | undefined {
  const v = spawnSync(exe, ["version", "--format", "{{.Server.Version}}"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  if (v.error || v.status !== 0) return `${exe} has no engine to talk to`;
  const i = spawnSync(exe, ["image", "inspect", image], { encoding: "utf8", timeout: 30_000 });
  if (i.status !== 0)
    return `${exe} lacks ${image} (set PATCHLOOP_TEST_IMAGE, or run .ci/engines.sh engines_start)`;
  return undefined;
}

/**
 * Per-command latency of each environment that works here (local, bwrap, docker, podman), as the
 * median of `runs` executions of `true` and `echo hi`, next to a raw `bash -c` spawn on the host
 * measured in the same run: `<env>.<command>_ms` and `<env>.<command>_ratio` (env / raw).
 * Container engines use PATCHLOOP_TEST_IMAGE (default patchloop-ci/base:bookworm).
 */
export async function benchEnvironments(runs = 20): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "patchloop-bench-env-"));
  const image = process.env.PATCHLOOP_TEST_IMAGE || "patchloop-ci/base:bookworm";
  const result: Record<string, unknown> = { runs };
  const raw: Record<string, number> = {};
  for (const c of COMMANDS) raw[c] = await timeRuns(runs, () => rawBash(c));
  result.raw_bash = Object.fromEntries(COMMANDS.map((c) => [`${c}_ms`, raw[c]]));

  const candidates: Array<[string, () => Promise<Environment> | Environment, string | undefined]> = [
    ["local", () => createLocalEnvironment({ cwd: dir }), undefined],
    [
      "bwrap",
      () => createBwrapEnvironment({ repoDir: dir }),
      spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "true"]).status === 0
        ? undefined
        : "bwrap does not work here",
    ],
    [
      "docker",
      () => createContainerEnvironment({ executable: "docker", image, network: "none", runId: "bench" }),
      engineReady("docker", image),
    ],
    [
      "podman",
      () =>
        createContainerEnvironment({
          executable: "podman",
          image: image.includes("/") && !image.startsWith("localhost/") ? `localhost/${image}` : image,
          network: "none",
          runId: "bench",
        }),
      engineReady("podman", image.startsWith("localhost/") ? image : `localhost/${image}`),
    ],
  ];
  try {
    for (const [name, make, skip] of candidates) {
      if (skip) {
        result[name] = { skipped: skip };
        continue;
      }
      const t0 = now();
      const env = await make();
      const figures: Record<string, number> = { start_ms: Math.round(now() - t0) };
      try {
        for (const c of COMMANDS) {
          const ms = await timeRuns(runs, () => env.exec(c));
          figures[`${c}_ms`] = ms;
          figures[`${c}_ratio`] = Math.round((ms / raw[c]) * 10) / 10;
        }
      } finally {
        await env.close();
      }
      result[name] = figures;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}
