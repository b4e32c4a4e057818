import { ConfigError } from "../config/errors.js";

/**
 * How `patchloop run` treats the model's actions (docs/interactive.md):
 * - `confirm`: each action is shown and the person decides (run, reject with a message, edit,
 *   switch mode);
 * - `yolo`: actions run without asking (Ctrl-C gives a prompt on a terminal);
 * - `human`: the person types the commands; their output goes to the model as observations.
 */
export type Mode = "confirm" | "yolo" | "human";

export const MODES: readonly Mode[] = ["confirm", "yolo", "human"];

/**
 * The mode of a run: `--mode` when given, else confirm on a terminal and yolo otherwise. Without a
 * terminal (stdin and stdout both), only yolo can work: nobody can answer.
 */
export function resolveMode(flag: string | undefined, terminal: boolean): Mode {
  if (flag === undefined) return terminal ? "confirm" : "yolo";
  if (!(MODES as readonly string[]).includes(flag))
    throw new ConfigError(`--mode ${flag}: not a mode; give one of ${MODES.join(", ")}`);
  const mode = flag as Mode;
  if (mode !== "yolo" && !terminal)
    throw new ConfigError(
      `--mode ${mode} asks a person at a terminal, but stdin or stdout is not one; run it in a terminal, or use --mode yolo`,
    );
  return mode;
}

/** The console line when the mode changes. */
export function modeNote(mode: Mode): string {
  if (mode === "confirm") return "mode: confirm (each action waits for your answer)";
  if (mode === "yolo") return "mode: yolo (actions run without asking; Ctrl-C gives you a prompt)";
  return "mode: human (you type the commands; /confirm or /yolo hands back to the model)";
}
