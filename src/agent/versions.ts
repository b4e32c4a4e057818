import { VERSION } from "../version.js";

/** Versions recorded in every trajectory and run.json. */
export function versions(): Record<string, string> {
  return { patchloop: VERSION, node: process.versions.node, platform: `${process.platform}-${process.arch}` };
}
