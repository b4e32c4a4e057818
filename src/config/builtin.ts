import { readdirSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../package-root.js";

/** Directory of the built-in configs shipped with patchloop. */
export function builtinDir(): string {
  return join(packageRoot(), "configs");
}

/** Names of the built-in configs (file names without `.yaml`), `base` excluded: it is always applied first. */
export function builtinNames(): string[] {
  return readdirSync(builtinDir())
    .filter((f) => f.endsWith(".yaml") && f !== "base.yaml")
    .map((f) => f.slice(0, -".yaml".length))
    .sort();
}

export function builtinPath(name: string): string {
  return join(builtinDir(), `${name}.yaml`);
}
