import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The directory holding patchloop's package.json (works from src/ and from dist/src/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      try {
        if ((JSON.parse(readFileSync(candidate, "utf8")) as { name?: string }).name === "patchloop")
          return dir;
      } catch {
        // not ours, keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`cannot find patchloop's package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
