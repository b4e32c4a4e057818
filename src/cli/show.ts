import type { Command } from "commander";
import { loadTrajectoryFile, TrajectoryFormatError } from "../inspect/normalize.js";
import { renderTrajectoryText } from "../inspect/terminal-render.js";
import { guarded } from "./guarded.js";
import { folderGivenToShow } from "./show-target.js";

interface ShowOptions {
  full?: boolean;
  /** true: --color, false: --no-color, undefined: colour on a TTY unless NO_COLOR is set. */
  color?: boolean;
}

/** Whether `show` colours its output when neither --color nor --no-color is given. */
export function defaultColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

/**
 * `patchloop show FILE [--full] [--color|--no-color]`: prints a trajectory (patchloop, mini-swe-agent
 * or SWE-agent) as THOUGHT / ACTION / OBSERVATION. Exit 2 when FILE cannot be read as a trajectory.
 */
export function register(program: Command): void {
  program
    .command("show")
    .description("Print a trajectory in the terminal (THOUGHT / ACTION / OBSERVATION)")
    .argument("<file>", "a trajectory: patchloop or mini-swe-agent .traj.json, or SWE-agent .traj")
    .option("--full", "show long prompts and observations whole instead of clipping them")
    .option("--color", "colour the output even when it is not a terminal")
    .option("--no-color", "never colour the output")
    .action((file: string, opts: ShowOptions) =>
      guarded(
        async () => {
          const folder = await folderGivenToShow(file);
          if (folder) throw new TrajectoryFormatError(folder);
          const view = await loadTrajectoryFile(file);
          const color = opts.color ?? defaultColor(process.stdout, process.env);
          process.stdout.write(renderTrajectoryText(view, { color, full: opts.full === true }));
          return 0;
        },
        { classes: [TrajectoryFormatError], prefix: "patchloop show: " },
      ),
    );
}
