import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Environment } from "../../src/environments/types.js";
import { createTools, EDIT_TOOL_USAGE, type ToolName, toolSpecs } from "../../src/tools/index.js";
import { makeSandbox, type Sandbox } from "./helpers.js";

let box: Sandbox;
beforeAll(() => {
  box = makeSandbox();
});
afterAll(() => box.cleanup());

describe("createTools", () => {
  test("makes each named tool once, in order, and lists their specs", () => {
    const tools = createTools(["bash", "str_replace_editor", "view_image", "bash"]);
    expect(tools.map((t) => t.name)).toEqual(["bash", "str_replace_editor", "view_image"]);
    const specs = toolSpecs(tools);
    expect(specs.map((s) => s.name)).toEqual(["bash", "str_replace_editor", "view_image"]);
    expect(specs[1]).toEqual({
      name: "str_replace_editor",
      description: tools[1].description,
      parameters: tools[1].parameters,
    });
  });

  test("the options reach the tools: bash mode, output limit, file size limit", async () => {
    const [bash, editor] = createTools(["bash", "str_replace_editor"], {
      bashMode: "persistent",
      outputLimit: 60,
      maxFileBytes: 10,
    });
    expect(bash.description).toContain("One shell is kept for the whole task");
    await bash.execute({ command: "cd /tmp" }, box.ctx);
    expect((await bash.execute({ command: "pwd" }, box.ctx)).output).toBe("/tmp\n");
    expect((await bash.execute({ command: "seq 1 100" }, box.ctx)).output).toContain(
      "characters left out of the middle",
    );
    await bash.close?.();
    const p = box.write("eleven.txt", "12345678901");
    expect((await editor.execute({ command: "view", path: p }, box.ctx)).output).toContain(
      "more than the editor's limit of 10 bytes for one file",
    );
  });

  test("edit_tool runs a whole heredoc block and describes itself with the usage text", async () => {
    const [edit] = createTools(["edit_tool"]);
    expect(edit.name).toBe("edit_tool");
    expect(edit.description).toBe(EDIT_TOOL_USAGE);
    const p = box.write("e.txt", "old\n");
    const block = `edit-tool str_replace --file ${p} << 'PATCH'\n---OLD---\nold\n---NEW---\nnew\nPATCH`;
    expect((await edit.execute({ command: block }, box.ctx)).returncode).toBe(0);
    expect(box.read("e.txt").toString("utf8")).toBe("new\n");
    expect((await edit.execute({ block }, box.ctx)).output).toBe(
      'edit_tool does not know the argument "block". Its arguments are: command.',
    );
  });

  test("arguments that are not a JSON object are an error result for every tool", async () => {
    const tools = createTools(["bash", "str_replace_editor", "edit_tool", "view_image"]);
    for (const tool of tools) {
      for (const [bad, shown] of [
        [null, "null"],
        ["ls", '"ls" (a string)'],
        [["ls"], '["ls"] (an array)'],
      ] as const) {
        const args = bad as unknown as Record<string, unknown>;
        expect(await tool.execute(args, box.ctx)).toEqual({
          output: `${tool.name} takes its arguments as a JSON object; got ${shown}.`,
          returncode: 1,
        });
      }
    }
  });

  test("a failing environment is not disguised as a tool error: the promise rejects", async () => {
    // The one stand-in here: an environment whose exec rejects, as a vanished container's would.
    const broken: Environment = { ...box.env, exec: () => Promise.reject(new Error("container is gone")) };
    const ctx = { ...box.ctx, env: broken };
    const [bash, editor, edit, image] = createTools([
      "bash",
      "str_replace_editor",
      "edit_tool",
      "view_image",
    ]);
    await expect(bash.execute({ command: "ls" }, ctx)).rejects.toThrow("container is gone");
    await expect(editor.execute({ command: "view", path: box.dir }, ctx)).rejects.toThrow(
      "container is gone",
    );
    await expect(edit.execute({ command: `edit-tool view --file ${box.dir}` }, ctx)).rejects.toThrow(
      "container is gone",
    );
    await expect(image.execute({ path: box.path("x.png") }, ctx)).rejects.toThrow("container is gone");
  });

  test("an unknown name is a configuration error", () => {
    expect(() => createTools(["grep" as ToolName])).toThrow(
      'Unknown tool "grep"; the tools are bash, str_replace_editor, edit_tool, view_image.',
    );
  });
});
