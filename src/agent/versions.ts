import { VERSION } from "../version.js";
import { sourceCommit } from "./source-commit.js";

/** Versions recorded in every trajectory and run.json (`patchloop_commit` when run from a git checkout). */
export function versions(): Record<string, string> {
  const commit = sourceCommit();
  return {
    patchloop: VERSION,
    ...(commit ? { patchloop_commit: commit } : {}),
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
  };
}
