import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { testImage } from "./engines.js";
import type { FixtureInstances } from "./fixture-instances.js";
import { git } from "./git-repo.js";

/**
 * Builds a docker image `tag` with the instance's repository at its base commit (without .git)
 * at /testbed, on the test base image, as SWE-bench's instance images hold it. `root` is a
 * scratch folder for the build context.
 */
export function buildInstanceImage(
  f: FixtureInstances,
  row: SwebenchInstance,
  tag: string,
  root: string,
): void {
  const ctx = join(root, `ctx-${row.instance_id}`);
  mkdirSync(join(ctx, "testbed"), { recursive: true });
  const clone = join(f.reposDir, row.repo.replace("/", "__"));
  const tar = join(root, `${row.instance_id}.tar`);
  git(clone, "archive", "-o", tar, row.base_commit);
  execFileSync("tar", ["-xf", tar, "-C", join(ctx, "testbed")]);
  writeFileSync(
    join(ctx, "Dockerfile"),
    `FROM ${testImage("docker")}\nCOPY testbed /testbed\nWORKDIR /testbed\n`,
  );
  execFileSync("docker", ["build", "-q", "-t", tag, ctx], { stdio: ["ignore", "pipe", "pipe"] });
}
