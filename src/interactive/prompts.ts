import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The person pressed Ctrl-C at a prompt (or the run is being stopped): the run ends as Interrupted. */
export class EndRun extends Error {
  constructor(message = "the person ended the run") {
    super(message);
    this.name = "EndRun";
  }
}

export interface Choice<T extends string> {
  value: T;
  name: string;
  /** Shown under the list while this choice is highlighted. */
  description?: string;
}

/** The questions an interactive run asks; prompts.ts implements them on the terminal. */
export interface Ask {
  choose<T extends string>(message: string, choices: Choice<T>[], initial?: T): Promise<T>;
  /** One line of text; `prefill` is put on the line for editing. */
  line(message: string, opts?: { prefill?: string; allowEmpty?: boolean }): Promise<string>;
  /** Text edited in $VISUAL / $EDITOR (for multi-line commands and tool arguments). */
  editor(text: string, suffix: string): Promise<string>;
}

/** Inquirer's prompt ended by Ctrl-C (ExitPromptError) or by the run's signal (AbortPromptError). */
function ended(err: unknown): never {
  const name = (err as Error | undefined)?.name;
  if (name === "ExitPromptError" || name === "AbortPromptError") throw new EndRun();
  throw err;
}

/**
 * The terminal's prompts (@inquirer/select and @inquirer/input, loaded at the first question),
 * stopped by `signal` (the run ending). Ctrl-C at a prompt rejects with EndRun.
 */
export function terminalAsk(signal: AbortSignal, onAsk: () => void = () => {}): Ask {
  return {
    async choose(message, choices, initial) {
      onAsk();
      // Loaded at the first question: a run nobody is asked anything in does not pay for them.
      const { default: select } = await import("@inquirer/select");
      return select({ message, choices, default: initial, loop: false }, { signal }).catch(ended);
    },
    async line(message, opts = {}) {
      onAsk();
      const { default: input } = await import("@inquirer/input");
      return input(
        {
          message,
          default: opts.prefill,
          prefill: opts.prefill !== undefined ? "editable" : undefined,
          required: !opts.allowEmpty,
        },
        { signal },
      ).catch(ended);
    },
    async editor(text, suffix) {
      onAsk();
      return editInEditor(text, suffix);
    },
  };
}

/**
 * Opens `text` in $VISUAL, else $EDITOR, else vi, on the terminal, and returns the saved text (its
 * final newline dropped when `text` had none). An editor that exits non-zero keeps the text as it was.
 */
export function editInEditor(text: string, suffix: string): string {
  const dir = mkdtempSync(join(tmpdir(), "patchloop-edit-"));
  const file = join(dir, `action${suffix}`);
  try {
    writeFileSync(file, text.endsWith("\n") ? text : `${text}\n`);
    const editor = process.env.VISUAL || process.env.EDITOR || "vi";
    const r = spawnSync("sh", ["-c", `${editor} "$1"`, "editor", file], { stdio: "inherit" });
    if (r.status !== 0) return text;
    const edited = readFileSync(file, "utf8");
    return text.endsWith("\n") ? edited : edited.replace(/\n$/, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
