import { stat } from "node:fs/promises";
import { join } from "node:path";
import { isTrajectoryName, scanFiles } from "../inspect/scan-files.js";

/**
 * When `show PATH` names a folder: what to say instead of reading it, naming the trajectories in
 * it (a run folder holds one per instance) and the command that takes a whole folder. Null for
 * anything that is not a folder (the trajectory reader says what is wrong with a file).
 */
export async function folderGivenToShow(path: string): Promise<string | null> {
  const info = await stat(path).catch(() => null);
  if (!info?.isDirectory()) return null;
  const found = (await scanFiles(path, { maxDepth: 3, maxEntries: 20_000 })).filter((f) =>
    isTrajectoryName(f.rel),
  );
  const browse = `; to browse a whole run folder: patchloop inspect ${path}`;
  if (found.length === 0)
    return `${path} is a folder, and holds no trajectory (*.traj.json, *.traj); show takes one trajectory file${browse}`;
  const named = found
    .slice(0, 3)
    .map((f) => join(path, f.rel))
    .join(", ");
  const more = found.length > 3 ? ` and ${found.length - 3} more` : "";
  const which = found.length === 1 ? "the trajectory in it" : `one of the ${found.length} trajectories in it`;
  return `${path} is a folder; show takes one trajectory file, such as ${which}: ${named}${more}${browse}`;
}
