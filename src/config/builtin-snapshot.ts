import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { packageRoot } from "../package-root.js";
import { builtinDir } from "./builtin.js";
import type { Plain } from "./merge.js";

/**
 * dist/configs.json: what each built-in config (configs/*.yaml) parses to, made by the build
 * (scripts/build-dist.mjs) with the same parser, and the sha256 of the text it was made from.
 * Parsing configs/base.yaml cold is most of a command's config load (~40 ms of a `run`'s start-up,
 * issue 45); reading this file is well under a millisecond. A file whose text no longer has the
 * recorded hash (a checkout's configs/ edited after the build) is parsed as YAML as before.
 */
interface Snapshot {
  format: 1;
  files: Record<string, { sha256: string; data: Plain }>;
}

export const SNAPSHOT_FILE = "configs.json";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Writes the snapshot of every configs/*.yaml that `parse` reads to JSON and back unchanged. */
export function writeBuiltinSnapshot(path: string, parse: (text: string, label: string) => unknown): void {
  const files: Snapshot["files"] = {};
  for (const name of readdirSync(builtinDir())
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    const text = readFileSync(join(builtinDir(), name), "utf8");
    let data: unknown;
    try {
      data = parse(text, `configs/${name}`);
    } catch {
      continue; // a broken file is parsed (and reported) where it is used
    }
    if (data === null || typeof data !== "object" || Array.isArray(data)) continue;
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(data)), data)) continue;
    files[name] = { sha256: sha256(text), data: data as Plain };
  }
  const snapshot: Snapshot = { format: 1, files };
  writeFileSync(path, `${JSON.stringify(snapshot)}\n`);
}

let loaded: Snapshot["files"] | null | undefined;

/** The snapshot `path` holds (as writeBuiltinSnapshot writes it); null when absent, unreadable or not one. */
export function readSnapshot(path: string): Snapshot["files"] | null {
  try {
    const s = JSON.parse(readFileSync(path, "utf8")) as Snapshot;
    return s?.format === 1 && s.files && typeof s.files === "object" ? s.files : null;
  } catch {
    return null;
  }
}

/** The build's snapshot, read once; null when there is none (running from src/ before a build). */
function snapshotFiles(): Snapshot["files"] | null {
  loaded ??= readSnapshot(join(packageRoot(), "dist", SNAPSHOT_FILE));
  return loaded;
}

/**
 * What the built-in config at `path` with this `text` parses to, from the snapshot (default: the
 * build's dist/configs.json); undefined when it is not a built-in, not in the snapshot, or changed.
 */
export function snapshotOf(
  path: string,
  text: string,
  files: Snapshot["files"] | null = snapshotFiles(),
): Plain | undefined {
  if (dirname(path) !== builtinDir()) return undefined;
  const entry = files?.[basename(path)];
  return entry && entry.sha256 === sha256(text) ? structuredClone(entry.data) : undefined;
}
