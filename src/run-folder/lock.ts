import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ownerAlive, ownerLabel, parseOwner } from "../util/process-alive.js";
import { BatchInputError } from "./errors.js";

/** The lock file of a run folder: the owner (host:pid:start time) of the run writing to it. */
export const LOCK_NAME = ".patchloop.lock";

const readOwner = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
};

/**
 * Takes the run folder for this process: two runs writing one folder would each rewrite
 * preds.json and run.json from their own view, and run (and pay for) the same instances twice.
 * The lock appears whole (a temp file hard-linked into place: never half written). A lock left by a
 * process that is gone (kill -9, a crash) is taken over: it is first renamed away, which only one
 * of two runs doing the same can do. Throws BatchInputError when a live run holds it. Returns the
 * release function (also run at process exit).
 */
export function lockRunFolder(outputDir: string): () => void {
  const path = join(outputDir, LOCK_NAME);
  const me = ownerLabel();
  // Named like writeFileAtomic's temp files, so that one left by a killed run is swept.
  const tmp = join(outputDir, `${LOCK_NAME}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  writeFileSync(tmp, `${me}\n`);
  const refuse = (owner: string | null, alive: boolean | "other-host") => {
    const { host, pid } = parseOwner(owner ?? "");
    return new BatchInputError(
      `another patchloop run (${alive === "other-host" ? `on host ${host}, ` : ""}pid ${pid || "?"}) is writing to ` +
        `${outputDir}. Wait for it to end or stop it; two runs on one folder would run the same instances twice. ` +
        `If that run is gone, delete ${path}.`,
    );
  };
  try {
    for (let tries = 0; ; tries++) {
      try {
        linkSync(tmp, path);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const owner = readOwner(path);
      // An empty or unreadable lock cannot be a live run's (they appear whole): take it over.
      const alive = owner ? ownerAlive(owner) : false;
      if (alive !== false || tries > 0) throw refuse(owner, alive);
      // The owner is gone: move its lock away (atomic; a second run doing the same gets ENOENT).
      const stale = `${tmp}.stale`;
      try {
        renameSync(path, stale);
      } catch {
        continue;
      }
      const moved = readOwner(stale);
      if (moved !== owner) {
        // Another run took the folder over in between and this moved its fresh lock: put it back.
        try {
          linkSync(stale, path);
        } catch {
          // it is back already
        }
        unlinkSync(stale);
        throw refuse(moved, moved ? ownerAlive(moved) : false);
      }
      unlinkSync(stale);
    }
  } finally {
    unlinkSync(tmp);
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off("exit", release);
    if (readOwner(path) === me) {
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    }
  };
  process.on("exit", release);
  return release;
}
