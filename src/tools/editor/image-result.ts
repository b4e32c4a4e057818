import { formatBytes } from "../base/format-bytes.js";
import type { ToolResult } from "../base/types.js";
import { EditorError } from "./file-access.js";
import { describeImage, type ImageInfo } from "./image-info.js";

/**
 * The result of viewing an image: the image itself (base64) with a one-line caption for a model
 * that can see, a plain note for one that cannot. Images over `maxBytes` are refused.
 */
export function imageResult(
  path: string,
  bytes: Buffer,
  info: ImageInfo,
  vision: boolean,
  maxBytes: number,
): ToolResult {
  const what = `${describeImage(info)}, ${formatBytes(bytes.length)}`;
  if (bytes.length > maxBytes)
    throw new EditorError(imageTooLargeMessage(path, info, bytes.length, maxBytes));
  if (!vision) {
    return {
      output:
        `${path} is an image (${what}). This model cannot see images, so it was not shown. ` +
        `If you need facts about it, compute them with a script.`,
      returncode: 0,
    };
  }
  return {
    output: `${path}: image (${what}), attached.`,
    returncode: 0,
    images: [{ mediaType: info.mediaType, data: bytes.toString("base64") }],
  };
}

/** The error for an image over the size limit (`size` null: larger than the limit, by how much unknown). */
export function imageTooLargeMessage(
  path: string,
  info: ImageInfo,
  size: number | null,
  maxBytes: number,
): string {
  const sized = size === null ? "" : `, ${formatBytes(size)}`;
  return (
    `${path} is an image (${describeImage(info)}${sized}), more than the ${formatBytes(maxBytes)} ` +
    `an image may have to be shown. Save a smaller version (fewer pixels, a lower DPI for a figure) and view that.`
  );
}
