import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

/** The TypeScript src/ (not dist/src's .js), whether run from dist/bench (the bench) or bench/ (vitest). */
export function sourceRoot(): string {
  for (const up of [join(import.meta.dirname, "..", "src"), resolve(import.meta.dirname, "..", "..", "src")])
    if (existsSync(join(up, "version.ts"))) return up;
  throw new Error("src/ not found");
}

/** The .ts files under `dir` (declarations left out). */
export function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}
