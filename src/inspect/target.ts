import { realpath, stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";

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
  if (info.isFile()) return { mode: "trajectory", root: dirname(real), file: basename(real) };
  throw new InspectTargetError(`${path} is neither a folder nor a regular file`);
}
