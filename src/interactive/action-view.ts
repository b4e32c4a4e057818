import pc from "picocolors";
import type { Action } from "../agent/protocols/types.js";
import type { Environment } from "../environments/types.js";
import { neutralize } from "../util/terminal-text.js";

type Colors = ReturnType<typeof pc.createColors>;

/** The command of a shell action (a text-protocol command or a bash tool call), else null. */
export function commandOf(action: Action): string | null {
  if (action.kind === "command") return action.command;
  if (action.name === "bash" && typeof action.args.command === "string") return action.args.command;
  return null;
}

/** The action with its command replaced (a shell action only). */
export function withCommand(action: Action, command: string): Action {
  if (action.kind === "command") return { kind: "command", command };
  return { ...action, args: { ...action.args, command } };
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

/**
 * A unified diff's lines coloured, without the `Index:` / `===` header of the diff package; the
 * file's and the model's text neutralised (control characters shown, never sent to the terminal).
 */
export function coloredDiff(c: Colors, patch: string): string {
  return patch
    .split("\n")
    .filter((l) => !l.startsWith("Index: ") && !/^={10,}$/.test(l))
    .map(neutralize)
    .map((l) =>
      l.startsWith("+++") || l.startsWith("---")
        ? c.bold(l)
        : l.startsWith("@@")
          ? c.cyan(l)
          : l.startsWith("+")
            ? c.green(l)
            : l.startsWith("-")
              ? c.red(l)
              : l,
    )
    .join("\n")
    .replace(/\n+$/, "");
}

/** Files over the editor's default limit are not read for a diff (the editor refuses them anyway). */
const DIFF_MAX_BYTES = 1_000_000;

async function fileText(env: Environment, path: string): Promise<string | null> {
  try {
    const bytes = await env.readFile(path, { maxBytes: DIFF_MAX_BYTES });
    return bytes.length > DIFF_MAX_BYTES ? null : bytes.toString("utf8");
  } catch {
    return null;
  }
}

/** What an editor call would change, as a diff of the file (or of the snippets when the file cannot be read). */
async function editorDiff(env: Environment, args: Record<string, unknown>): Promise<string | null> {
  const path = str(args.path);
  const command = str(args.command);
  // loaded at the first edit shown (a run nobody watches never needs it)
  const { createTwoFilesPatch } = await import("diff");
  const diffOf = (before: string, after: string) =>
    createTwoFilesPatch(path, path, before, after, undefined, undefined, { context: 3 });
  if (command === "create") return diffOf("", str(args.file_text));
  if (command === "str_replace") {
    const before = await fileText(env, path);
    const oldStr = str(args.old_str);
    const newStr = str(args.new_str);
    if (before !== null && oldStr !== "" && before.split(oldStr).length === 2)
      return diffOf(
        before,
        before.replace(oldStr, () => newStr),
      );
    // the file cannot be read here, or old_str is not in it once (the tool will say so): the snippets
    return diffOf(`${oldStr}\n`, `${newStr}\n`);
  }
  if (command === "insert" && typeof args.insert_line === "number") {
    const before = await fileText(env, path);
    if (before === null) return null;
    const lines = before.split("\n");
    const inserted = str(args.new_str).replace(/\n$/, "").split("\n");
    lines.splice(args.insert_line, 0, ...inserted);
    return diffOf(before, lines.join("\n"));
  }
  return null;
}

/**
 * An action as the person sees it before deciding: the command for a shell action; for the
 * editor, the edit as a diff of the file (view and undo in words); other tools: name and arguments.
 * What the model wrote is neutralised as `show` does: its control characters are shown, not obeyed.
 */
export async function renderAction(action: Action, env: Environment, color: boolean): Promise<string> {
  const c = pc.createColors(color);
  const head = c.bold(c.cyan("ACTION"));
  const command = commandOf(action);
  if (command !== null) return `${head}\n${neutralize(command)}`;
  if (action.kind !== "tool") return head;
  const args = action.args;
  const name = neutralize(action.name);
  if (action.name === "str_replace_editor") {
    const what = neutralize(str(args.command));
    const path = neutralize(str(args.path));
    const diff = await editorDiff(env, args);
    if (diff) return `${head} ${name} ${what} ${path}\n${coloredDiff(c, diff)}`;
    if (what === "view") return `${head} ${name} view ${path}`;
    if (what === "undo_edit") return `${head} ${name} undo the last edit of ${path}`;
  }
  return `${head} ${name} ${neutralize(JSON.stringify(args, null, 2))}`;
}
