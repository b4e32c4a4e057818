import pc from "picocolors";
import { neutralize } from "../util/terminal-text.js";
import { coloredDiff } from "./action-view.js";
import { canUndoInPlace, carryOut, type FinishChoice, undoAll } from "./finish.js";
import { type Ask, type Choice, EndRun } from "./prompts.js";
import { branchOf, removalHint, type Workspace } from "./workspace.js";

/** Lines of the patch shown before the question; the whole patch is in the run folder. */
export const SHOWN_PATCH_LINES = 200;

export interface EndOfRunOptions {
  ws: Workspace;
  /** The choice made beforehand (`--finish`, or a run without a terminal); null: ask. */
  choice: FinishChoice | null;
  ask: Ask;
  /** What the run recorded as its patch (the submission). */
  submission: string;
  /**
   * The work folder's changes, taken inside the environment before it closed (run.ts), or why they
   * could not be taken.
   */
  changes: { patch: string } | { error: string };
  patchPath: string;
  /** The commit message, should the patch go on a branch. */
  message: string;
  write: (s: string) => void;
  color: boolean;
  scrub: (s: string) => string;
}

function choicesFor(ws: Workspace): Choice<FinishChoice>[] {
  const branch = branchOf(ws);
  if (ws.mode === "worktree")
    return [
      { value: "apply", name: `Apply it to your tree (${ws.repo}; nothing is staged)` },
      { value: "branch", name: `Commit it on the branch ${branch} (your tree stays as it is)` },
      { value: "discard", name: "Discard it (your tree stays as it is; the patch file is kept)" },
    ];
  const keep: Choice<FinishChoice> = {
    value: "apply",
    name: `Keep it in your tree (${ws.repo}; nothing is staged)`,
  };
  if (!canUndoInPlace(ws)) return [keep];
  return [
    keep,
    { value: "branch", name: `Move it to the branch ${branch} (taken out of your tree)` },
    { value: "discard", name: "Take it out of your tree again (the patch file is kept)" },
  ];
}

/**
 * The end of `patchloop run`: the agent's changes (the work folder's diff) are shown, the
 * person chooses what becomes of them (or `choice` was made beforehand), and it is carried out
 * (finish.ts). Ctrl-C at the question keeps the tree as it is: discard in a worktree, keep in place.
 * When the changes cannot be read, the worktree is left where it is and the console says so; in
 * place with a sandbox the tree is put back as it was at the start instead (nothing unread stays).
 */
export async function endOfRun(o: EndOfRunOptions): Promise<void> {
  const c = pc.createColors(o.color);
  const { ws } = o;
  if ("error" in o.changes) {
    o.write(`${c.red("the work folder's changes could not be read")}: ${o.changes.error}\n`);
    if (ws.snapshot) {
      // in place with a sandbox: what cannot be read cannot be shown, so none of it stays
      for (const line of await undoAll(ws, ws.snapshot)) o.write(`${o.scrub(neutralize(line))}\n`);
      return;
    }
    o.write(`it is left as it is: ${ws.dir}\n`);
    if (ws.mode === "worktree") o.write(`${removalHint(ws)}\n`);
    return;
  }
  const { patch } = o.changes;
  if (patch !== "" && o.submission !== "" && o.submission.trimEnd() !== patch.trimEnd())
    o.write(
      `note: the submitted patch (${o.patchPath}) is not the same as the changes in ${ws.dir}; ` +
        "what follows uses the changes in the work folder\n",
    );
  let choice = o.choice;
  if (choice === null && patch !== "") {
    const lines = patch.replace(/\n$/, "").split("\n");
    const shown = lines.slice(0, SHOWN_PATCH_LINES).join("\n");
    o.write(`\n${c.bold("PATCH")} (${lines.length} lines)\n${o.scrub(coloredDiff(c, shown))}\n`);
    if (lines.length > SHOWN_PATCH_LINES)
      o.write(
        c.dim(`[... ${lines.length - SHOWN_PATCH_LINES} more lines; the whole patch: ${o.patchPath}]\n`),
      );
    const choices = choicesFor(ws);
    try {
      choice = await o.ask.choose("What should become of the patch?", choices, choices[0].value);
    } catch (err) {
      if (!(err instanceof EndRun)) throw err;
      choice = ws.mode === "worktree" ? "discard" : "apply";
    }
  }
  // the lines name paths the agent chose: no control character reaches the terminal
  for (const line of await carryOut(ws, choice ?? "discard", patch, o.message))
    o.write(`${o.scrub(neutralize(line))}\n`);
}
