import { readFileSync } from "node:fs";

function readVersion(): string {
  for (const rel of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "patchloop" && pkg.version) return pkg.version;
    } catch {
      // try the next location (src/ when run from sources, dist/src/ when built)
    }
  }
  return "0.0.0";
}

/** patchloop's version from package.json. */
export const VERSION = readVersion();
