import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createViewImageTool } from "../../src/tools/view-image.js";
import { editToolFront, jsonFront } from "./editor-fronts.js";
import { makeSandbox, type Sandbox } from "./helpers.js";
import { gifBytes, jpegBytes, pngBytes, webpBytes } from "./image-bytes.js";

const IMAGES = [
  { file: "plot.png", bytes: pngBytes(5, 3), mediaType: "image/png", caption: "PNG, 5x3 pixels" },
  { file: "photo.jpg", bytes: jpegBytes(7, 2), mediaType: "image/jpeg", caption: "JPEG, 7x2 pixels" },
  { file: "anim.gif", bytes: gifBytes(9, 4), mediaType: "image/gif", caption: "GIF, 9x4 pixels" },
  { file: "pic.webp", bytes: webpBytes(6, 11), mediaType: "image/webp", caption: "WebP, 6x11 pixels" },
];

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

for (const front of [jsonFront, editToolFront]) {
  describe(`${front.label}: view of an image`, () => {
    for (const image of IMAGES) {
      test(`${image.caption}: the image for a model with vision`, async () => {
        const p = box.write(image.file, image.bytes);
        expect(await front.make().view({ ...box.ctx, vision: true }, p)).toEqual({
          output: `${p}: image (${image.caption}, ${image.bytes.length} bytes), attached.`,
          returncode: 0,
          images: [{ mediaType: image.mediaType, data: image.bytes.toString("base64") }],
        });
      });

      test(`${image.caption}: a note for a model without vision`, async () => {
        const p = box.write(image.file, image.bytes);
        expect(await front.make().view({ ...box.ctx, vision: false }, p)).toEqual({
          output: `${p} is an image (${image.caption}, ${image.bytes.length} bytes). This model cannot see images, so it was not shown. If you need facts about it, compute them with a script.`,
          returncode: 0,
        });
      });
    }
  });
}

test("the type is found by the magic bytes, not the file name; a cut header gives no size", async () => {
  const p = box.write("figure.dat", pngBytes(2, 2));
  expect((await jsonFront.make().view(box.ctx, p)).output).toMatch(
    /^\S+ is an image \(PNG, 2x2 pixels, \d+ bytes\)/,
  );
  const cut = box.write("cut.png", pngBytes(2, 2).subarray(0, 8));
  expect((await jsonFront.make().view({ ...box.ctx, vision: true }, cut)).output).toBe(
    `${cut}: image (PNG, 8 bytes), attached.`,
  );
});

test("an image over every limit is refused as an image, its type and size read from its first bytes", async () => {
  const jpeg = jpegBytes(7, 2);
  const p = box.write("photo.jpg", jpeg);
  for (const front of [jsonFront, editToolFront]) {
    expect(await front.make({ maxFileBytes: 20, maxImageBytes: 50 }).view(box.ctx, p)).toEqual({
      output: `${p} is an image (JPEG, 7x2 pixels, ${jpeg.length} bytes), more than the 50 bytes an image may have to be shown. Save a smaller version (fewer pixels, a lower DPI for a figure) and view that.`,
      returncode: 1,
    });
  }
  const text = box.write("t.txt", "y".repeat(100));
  expect((await jsonFront.make({ maxFileBytes: 20, maxImageBytes: 50 }).view(box.ctx, text)).output).toBe(
    `${text} is 100 bytes, more than the editor's limit of 20 bytes for one file, so it was not opened. Look at parts of it from the shell instead, e.g. grep -n 'PATTERN' ${text} or sed -n '100,160p' ${text}.`,
  );
});

describe("view_image", () => {
  test("shows an image, or says the model cannot see it", async () => {
    const tool = createViewImageTool();
    const png = pngBytes(5, 3);
    const p = box.write("out/fig.png", png);
    expect(await tool.execute({ path: p }, { ...box.ctx, vision: true })).toEqual({
      output: `${p}: image (PNG, 5x3 pixels, ${png.length} bytes), attached.`,
      returncode: 0,
      images: [{ mediaType: "image/png", data: png.toString("base64") }],
    });
    expect((await tool.execute({ path: p }, box.ctx)).images).toBeUndefined();
  });

  test("errors: not an image, too large, relative path, missing argument, unknown argument", async () => {
    const tool = createViewImageTool({ maxImageBytes: 50 });
    const text = box.write("notes.txt", "hello\n");
    expect(await tool.execute({ path: text }, box.ctx)).toEqual({
      output: `${text} is not a PNG, JPEG, GIF or WebP image (its first bytes match none of them), so it cannot be shown as an image. Read a text file with the shell or the editor instead.`,
      returncode: 1,
    });
    const png = pngBytes(5, 3);
    const big = box.write("big.png", png);
    expect(await tool.execute({ path: big }, box.ctx)).toEqual({
      output: `${big} is an image (PNG, 5x3 pixels, ${png.length} bytes), more than the 50 bytes an image may have to be shown. Save a smaller version (fewer pixels, a lower DPI for a figure) and view that.`,
      returncode: 1,
    });
    const longText = box.write("long.txt", "x".repeat(500));
    expect((await tool.execute({ path: longText }, box.ctx)).output).toBe(
      `${longText} is not a PNG, JPEG, GIF or WebP image (its first bytes match none of them), so it cannot be shown as an image. Read a text file with the shell or the editor instead.`,
    );
    expect((await tool.execute({ path: "fig.png" }, box.ctx)).output).toBe(
      `The path "fig.png" is not absolute; the editor needs a full path starting with /. If you meant the one in the working directory, use ${box.dir}/fig.png.`,
    );
    expect(await tool.execute({}, box.ctx)).toEqual({
      output: "Missing argument path: the absolute path of the image.",
      returncode: 1,
    });
    expect((await tool.execute({ file: text }, box.ctx)).output).toBe(
      'view_image does not know the argument "file". Its arguments are: path.',
    );
  });
});
