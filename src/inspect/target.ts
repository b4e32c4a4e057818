import { realpath, stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { loadTrajectoryFile, TrajectoryFormatError } from "./normalize.js";

/** What `patchloop inspect PATH` serves: a run folder, or a single trajectory file. */
export type InspectTarget =
  | { mode: "run" /** real path of the folder */; root: string; name: string }
  | {
      mode: "trajectory" /** real path of the file's folder */;
      root: string /** the file's name */;
      file: string;
    };

/** PATH does not name something the viewer can serve; the message says what was found instead. */
export class InspectTargetError extends Error {
  override name = "InspectTargetError";
}

/** Resolves PATH (symbolic links followed once, here) into the target the server is confined to. */
export async function resolveTarget(path: string): Promise<InspectTarget> {
  const absolute = resolve(path);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch {
    throw new InspectTargetError(
      `${path} does not exist; pass a run folder (made by patchloop swebench -o DIR) or a trajectory file`,
    );
  }
  const info = await stat(real);
  if (info.isDirectory()) return { mode: "run", root: real, name: basename(real) };
  if (!info.isFile())
    throw new InspectTargetError(`${path} is neither a folder nor a regular file; ${TAKES}`);
  // a file is served only when it reads as a trajectory (a dataset or preds file is not one)
  try {
    await loadTrajectoryFile(real);
  } catch (err) {
    if (!(err instanceof TrajectoryFormatError)) throw err;
    throw new InspectTargetError(`${path} is not a trajectory: ${err.message}\n${TAKES}`);
  }
  return { mode: "trajectory", root: dirname(real), file: basename(real) };
}

/** What `inspect PATH` takes, said when PATH is something else. */
const TAKES =
  "inspect takes a run folder (patchloop swebench -o DIR, patchloop run -o DIR) or one trajectory file (.traj.json, .traj)";
