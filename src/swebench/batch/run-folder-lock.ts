import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ownerAlive, ownerLabel } from "../../environments/container-registry.js";
import { BatchInputError } from "./errors.js";

/** The lock file of a run folder: the owner (host:pid:start time) of the run writing to it. */
export const LOCK_NAME = ".patchloop.lock";

/**
 * Takes the run folder for this process: two runs writing one folder would each rewrite
 * preds.json and run.json from their own view, and run (and pay for) the same instances twice.
 * A lock left by a process that is gone (kill -9, a crash) is taken over. Throws BatchInputError
 * when a live run holds it. Returns the release function (also run at process exit).
 */
export function lockRunFolder(outputDir: string): () => void {
  const path = join(outputDir, LOCK_NAME);
  const me = ownerLabel();
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${me}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let owner = "";
    try {
      owner = readFileSync(path, "utf8").trim();
    } catch {
      // removed in between: try again
    }
    const alive = owner === "" ? false : ownerAlive(owner);
    if (alive !== false || attempt > 0) {
      const [host, pid] = owner.split(":");
      throw new BatchInputError(
        `another patchloop run (${alive === "other-host" ? `on host ${host}, ` : ""}pid ${pid || "?"}) is writing to ` +
          `${outputDir}. Wait for it to end or stop it; two runs on one folder would run the same instances twice. ` +
          `If that run is gone, delete ${path}.`,
      );
    }
    // The owner is gone (killed, crashed): take the folder over.
    try {
      unlinkSync(path);
    } catch {
      // someone else removed it first
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off("exit", release);
    try {
      if (readFileSync(path, "utf8").trim() === me) unlinkSync(path);
    } catch {
      // already gone
    }
  };
  process.on("exit", release);
  return release;
}
