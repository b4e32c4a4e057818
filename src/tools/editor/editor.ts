import { shellQuote } from "../../util/shell-quote.js";
import { formatBytes } from "../base/format-bytes.js";
import type { ToolContext, ToolResult } from "../base/types.js";
import {
  decodeText,
  EditorError,
  pathProblem,
  probePath,
  readHead,
  readRegularFile,
  refuseNul,
  TooLargeError,
  tooLargeMessage,
  writeBytes,
} from "./file-access.js";
import { EditHistory } from "./history.js";
import { detectImage } from "./image-info.js";
import { imageResult, imageTooLargeMessage } from "./image-result.js";
import { insertAfter, replaceOnce } from "./text-edits.js";
import { lineStarts } from "./text-lines.js";
import { renderDirView } from "./view-dir.js";
import { renderFileView } from "./view-file.js";
import { type EditorWords, JSON_TOOL_WORDS } from "./words.js";

/** Bytes read from the start of a file too large to load, to tell an image (and its size) from text. */
const HEAD_BYTES = 32_768;

function notImageMessage(path: string): string {
  return (
    `${path} is not a PNG, JPEG, GIF or WebP image (its first bytes match none of them), so it cannot ` +
    `be shown as an image. Read a text file with the shell or the editor instead.`
  );
}

/** Limits and wording of one editor instance. */
export interface EditorOptions {
  /** How the front names its inputs in messages; str_replace_editor's names by default. */
  words?: EditorWords;
  /** Characters of a view (file or directory listing) shown before it is clipped. Default 16000. */
  outputLimit?: number;
  /** Larger text files are refused for viewing and editing. Default 1 MB. */
  maxFileBytes?: number;
  /** Larger images are refused. Default 5 MB. */
  maxImageBytes?: number;
  /** Undo levels kept per file. Default 20. */
  historyDepth?: number;
}

/**
 * The editor core behind str_replace_editor and the heredoc edit-tool. It reaches files only through
 * the environment (`readFile`, `writeFile`, `exec`), works on the raw text (line endings, tabs, a
 * missing final newline and non-ASCII text are written back exactly as they were), and keeps its own
 * undo history. Every method resolves to a ToolResult; problems with the request or the file are
 * `returncode: 1` results. Only a failing environment (an `exec` that rejects) makes a method reject.
 */
export class Editor {
  private readonly words: EditorWords;
  private readonly outputLimit: number;
  private readonly maxFileBytes: number;
  private readonly maxImageBytes: number;
  private readonly history: EditHistory;

  constructor(options: EditorOptions = {}) {
    this.words = options.words ?? JSON_TOOL_WORDS;
    this.outputLimit = options.outputLimit ?? 16_000;
    this.maxFileBytes = options.maxFileBytes ?? 1_000_000;
    this.maxImageBytes = options.maxImageBytes ?? 5_000_000;
    this.history = new EditHistory(options.historyDepth ?? 20);
  }

  private async guarded(
    ctx: ToolContext,
    path: string,
    work: () => Promise<ToolResult>,
  ): Promise<ToolResult> {
    const problem = pathProblem(path, ctx.env.cwd);
    if (problem) return { output: problem, returncode: 1 };
    try {
      return await work();
    } catch (err) {
      if (err instanceof EditorError) return { output: err.message, returncode: 1 };
      throw err;
    }
  }

  private async readText(
    ctx: ToolContext,
    path: string,
    purpose: string,
  ): Promise<{ bytes: Buffer; text: string }> {
    const bytes = await readRegularFile(ctx, path, purpose, this.maxFileBytes);
    return { bytes, text: decodeText(bytes, path, purpose) };
  }

  /**
   * Reads a file to show it; one over `limit` is refused with the message that fits what it is,
   * found from its first bytes: an image's (with its type and size) or a text file's.
   */
  private async readUpTo(
    ctx: ToolContext,
    path: string,
    purpose: string,
    limit: number,
    notImage: (size: number | null) => string,
  ): Promise<Buffer> {
    try {
      return await readRegularFile(ctx, path, purpose, limit);
    } catch (err) {
      if (!(err instanceof TooLargeError)) throw err;
      const image = detectImage(await readHead(ctx, path, HEAD_BYTES));
      if (image) throw new EditorError(imageTooLargeMessage(path, image, err.size, this.maxImageBytes));
      throw new EditorError(notImage(err.size));
    }
  }

  /** A file's numbered lines (optionally a range), a directory's entries, or an image. */
  view(ctx: ToolContext, path: string, range?: [number, number]): Promise<ToolResult> {
    return this.guarded(ctx, path, async () => {
      const probe = await probePath(ctx, path);
      if (probe.kind === "dir") {
        if (range) {
          throw new EditorError(
            `${path} is a directory; a line range only applies to files. View it without one.`,
          );
        }
        return { output: await renderDirView(ctx, path, this.outputLimit), returncode: 0 };
      }
      const limit = Math.max(this.maxFileBytes, this.maxImageBytes);
      const bytes = await this.readUpTo(ctx, path, "view", limit, (size) =>
        tooLargeMessage(path, size, this.maxFileBytes),
      );
      const image = detectImage(bytes);
      if (image) return imageResult(path, bytes, image, ctx.vision, this.maxImageBytes);
      if (bytes.length > this.maxFileBytes) {
        throw new EditorError(tooLargeMessage(path, bytes.length, this.maxFileBytes));
      }
      const text = decodeText(bytes, path, "view");
      return { output: renderFileView(path, text, range, this.outputLimit, this.words), returncode: 0 };
    });
  }

  /** Shows an image file (PNG, JPEG, GIF, WebP) and nothing else. */
  viewImage(ctx: ToolContext, path: string): Promise<ToolResult> {
    return this.guarded(ctx, path, async () => {
      const bytes = await this.readUpTo(ctx, path, "view_image", this.maxImageBytes, () =>
        notImageMessage(path),
      );
      const image = detectImage(bytes);
      if (!image) throw new EditorError(notImageMessage(path));
      return imageResult(path, bytes, image, ctx.vision, this.maxImageBytes);
    });
  }

  /** Creates a new file with exactly `text`; an existing path is refused. */
  create(ctx: ToolContext, path: string, text: string): Promise<ToolResult> {
    return this.guarded(ctx, path, async () => {
      refuseNul(text, this.words.createText, path);
      const probe = await probePath(ctx, path);
      if (probe.kind === "dir") throw new EditorError(`Cannot create ${path}: it is an existing directory.`);
      if (probe.kind !== "missing") {
        throw new EditorError(
          `Cannot create ${path}: a file already exists there, and create only makes new files. ` +
            `Change it with str_replace or insert (view it first), or choose another path.`,
        );
      }
      const bytes = Buffer.from(text, "utf8");
      await writeBytes(ctx, path, bytes);
      this.history.push(path, null);
      const lines = lineStarts(text).length;
      return {
        output: `Created ${path} (${lines} line${lines === 1 ? "" : "s"}, ${formatBytes(bytes.length)}).`,
        returncode: 0,
      };
    });
  }

  /** Replaces `oldStr` with `newStr` when it occurs exactly once. */
  strReplace(ctx: ToolContext, path: string, oldStr: string, newStr: string): Promise<ToolResult> {
    return this.guarded(ctx, path, async () => {
      refuseNul(newStr, this.words.newText, path);
      const { bytes, text } = await this.readText(ctx, path, "str_replace");
      const outcome = replaceOnce(text, oldStr, newStr, path, this.words);
      await writeBytes(ctx, path, Buffer.from(outcome.text, "utf8"));
      this.history.push(path, bytes);
      return { output: outcome.message, returncode: 0 };
    });
  }

  /** Inserts `text` as whole lines after line `after` (0 = top). */
  insert(ctx: ToolContext, path: string, after: number, text: string): Promise<ToolResult> {
    return this.guarded(ctx, path, async () => {
      refuseNul(text, this.words.insertText, path);
      const { bytes, text: current } = await this.readText(ctx, path, "insert");
      const outcome = insertAfter(current, after, text, path, this.words);
      await writeBytes(ctx, path, Buffer.from(outcome.text, "utf8"));
      this.history.push(path, bytes);
      return { output: outcome.message, returncode: 0 };
    });
  }

  /** Restores the content the file had before the last edit made through this editor. */
  undo(ctx: ToolContext, path: string): Promise<ToolResult> {
    return this.guarded(ctx, path, async () => {
      const before = this.history.pop(path);
      if (before === undefined) {
        throw new EditorError(
          `There is no edit of ${path} to undo: this editor has not changed that file, ` +
            `or all its edits were already undone.`,
        );
      }
      const left = this.history.size(path);
      const more = left > 0 ? ` (${left} earlier edit${left === 1 ? "" : "s"} can still be undone)` : "";
      if (before === null) {
        const result = await ctx.env.exec(`rm -f -- ${shellQuote(path)}`, { timeout: ctx.timeout });
        if (result.returncode !== 0) {
          this.history.push(path, null);
          throw new EditorError(`Could not remove ${path} to undo its creation: ${result.output.trim()}`);
        }
        return { output: `Undid the creation of ${path}: the file was removed${more}.`, returncode: 0 };
      }
      try {
        await writeBytes(ctx, path, before);
      } catch (err) {
        this.history.push(path, before);
        throw err;
      }
      return {
        output: `Undid the last edit of ${path}: it has its earlier content again${more}.`,
        returncode: 0,
      };
    });
  }
}
