import { createReadStream } from "node:fs";
import { Tokenizer, TokenParser, TokenType } from "@streamparser/json";
import { MAX_JSON_DEPTH, tooDeepNote } from "../util/json-walk.js";

/**
 * Reads a (possibly huge) JSON file for the viewer without holding its text: the file is
 * tokenized as a stream (@streamparser/json) and the value built from the tokens, with every
 * string longer than `maxString` characters kept as its head and tail around a note, and every
 * container deeper than `maxDepth` replaced by a note. A 100 MB trajectory of long observations
 * then costs about its clipped size in memory, not several times its file size.
 */
export interface ClipOptions {
  /** Characters kept of one string (head and tail); default 50,000. */
  maxString?: number;
  /** Levels of nesting kept; default MAX_JSON_DEPTH. */
  maxDepth?: number;
}

/** Raised for a file that is not valid JSON, with the tokenizer's reason. */
export class ClippedJsonError extends Error {}

/** `text` cut to `max` characters: its head and tail around a note saying how much was left out. */
export function clipString(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters left out by the viewer ...]\n${text.slice(-half)}`;
}

/**
 * Parses `path` as described in {@link ClipOptions}: the library's tokenizer and token parser
 * (which checks the grammar and builds the value), with a filter between them that shortens string
 * tokens and replaces a container opened past `maxDepth` by one string token (its inner tokens are
 * dropped, counted only to find where it closes). Rejects with ClippedJsonError on invalid JSON.
 */
export function readClippedJson(path: string, options: ClipOptions = {}): Promise<unknown> {
  const maxString = options.maxString ?? 50_000;
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      stream.destroy();
      reject(err instanceof ClippedJsonError ? err : new ClippedJsonError(err.message));
    };
    const tokenizer = new Tokenizer({ stringBufferSize: 64 * 1024 });
    // Only the root value is emitted; everything below it is built in place.
    const parser = new TokenParser({ paths: ["$"] });
    let root: unknown;
    let haveRoot = false;
    parser.onValue = ({ value }) => {
      root = value;
      haveRoot = true;
    };
    parser.onError = fail;
    tokenizer.onError = fail;
    let depth = 0;
    /** Depth of the container being dropped (too deep), or 0. */
    let dropping = 0;
    tokenizer.onToken = (info) => {
      const { token } = info;
      const opens = token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET;
      const closes = token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET;
      if (dropping) {
        if (opens) depth++;
        else if (closes && --depth < dropping) dropping = 0;
        return;
      }
      if (opens && depth + 1 > maxDepth) {
        depth++;
        dropping = depth;
        parser.write({ ...info, token: TokenType.STRING, value: tooDeepNote(maxDepth) });
        return;
      }
      if (opens) depth++;
      if (closes) depth--;
      if (token === TokenType.STRING && typeof info.value === "string" && info.value.length > maxString) {
        parser.write({ ...info, value: clipString(info.value, maxString) });
        return;
      }
      parser.write(info);
    };
    const stream = createReadStream(path);
    stream.on("data", (chunk) => {
      try {
        tokenizer.write(chunk as Buffer);
      } catch (err) {
        fail(err as Error);
      }
    });
    stream.on("error", (err) => {
      if (settled) return;
      settled = true;
      reject(err);
    });
    stream.on("end", () => {
      try {
        if (!tokenizer.isEnded) tokenizer.end();
      } catch (err) {
        fail(err as Error);
        return;
      }
      if (settled) return;
      settled = true;
      if (haveRoot) resolve(root);
      else reject(new ClippedJsonError("the file ends before its JSON value does"));
    });
  });
}
