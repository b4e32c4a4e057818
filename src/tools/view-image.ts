import { ArgumentError, errorResult, rejectUnknown, requireString } from "./base/args.js";
import type { Tool } from "./base/types.js";
import { Editor } from "./editor/editor.js";

/** Options of the view_image tool. */
export interface ViewImageOptions {
  /** Larger images are refused. Default 5 MB. */
  maxImageBytes?: number;
}

/**
 * A small tool that shows one PNG, JPEG, GIF or WebP image: the image itself for a model with
 * vision, a plain note with its type, size and pixel dimensions for one without.
 */
export function createViewImageTool(options: ViewImageOptions = {}): Tool {
  const editor = new Editor({ maxImageBytes: options.maxImageBytes });
  return {
    name: "view_image",
    description:
      "Look at an image file (PNG, JPEG, GIF or WebP) in the task's environment, for instance a plot your code " +
      "saved. The path must be absolute.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Absolute path of the image, e.g. /repo/out/figure.png." },
      },
      required: ["path"],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      try {
        rejectUnknown(args, ["path"], "view_image");
        return await editor.viewImage(ctx, requireString(args, "path", "the absolute path of the image"));
      } catch (err) {
        if (err instanceof ArgumentError) return errorResult(err.message);
        throw err;
      }
    },
  };
}
