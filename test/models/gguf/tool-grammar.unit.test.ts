import { describe, expect, it } from "vitest";
import { toolCallGbnf } from "../../../src/models/gguf/tool-grammar.js";
import { createTools, toolSpecs } from "../../../src/tools/index.js";
import { xgrammarGbnf } from "../../support/xgrammar.js";

const SPECS = toolSpecs(createTools(["bash", "str_replace_editor"]));

describe("the tool-call grammar of the embedded runtime", () => {
  it("accepts one JSON call of each known tool, with required and optional arguments", async () => {
    const accepts = await xgrammarGbnf(toolCallGbnf(SPECS));
    const good = [
      '{"name": "bash", "arguments": {"command": "ls -la"}}',
      '{"name":"bash","arguments":{"command":"grep -rn \\"median\\" src\\n"}}',
      '{"name": "str_replace_editor", "arguments": {"command": "view", "path": "/testbed/src/stats.js"}}',
      '{"name": "str_replace_editor", "arguments": {"command": "view", "path": "/a", "view_range": [1, -1]}}',
      '{"name": "str_replace_editor", "arguments": {"command": "str_replace", "path": "/a", "old_str": "x", "new_str": ""}}',
      '{"name": "str_replace_editor", "arguments": {"command": "insert", "path": "/a", "new_str": "y", "insert_line": 0}}',
    ];
    for (const text of good) expect(await accepts(text), text).toBe(true);
  });

  it("rejects unknown tools, missing required arguments, wrong types and a second call", async () => {
    const accepts = await xgrammarGbnf(toolCallGbnf(SPECS));
    const bad = [
      '{"name": "python", "arguments": {"code": "1"}}',
      '{"name": "bash", "arguments": {}}',
      '{"name": "bash", "arguments": {"command": 3}}',
      '{"name": "str_replace_editor", "arguments": {"command": "delete", "path": "/a"}}',
      '{"name": "str_replace_editor", "arguments": {"path": "/a"}}',
      '{"name": "str_replace_editor", "arguments": {"command": "view", "path": "/a", "view_range": [1]}}',
      '{"name": "str_replace_editor", "arguments": {"command": "view", "path": "/a", "insert_line": "2"}}',
      '{"name": "bash", "arguments": {"command": "ls"}}{"name": "bash", "arguments": {"command": "ls"}}',
      'I will list the files. {"name": "bash", "arguments": {"command": "ls"}}',
      '{"name": "bash", "arguments": {"command": "a\nb"}}',
    ];
    for (const text of bad) expect(await accepts(text), text).toBe(false);
  });

  it("takes a tool whose parameters have no required property and any JSON where the schema says nothing", async () => {
    const accepts = await xgrammarGbnf(
      toolCallGbnf([
        {
          name: "note",
          description: "",
          parameters: { type: "object", properties: { a: { type: "boolean" }, b: { type: "number" } } },
        },
        {
          name: "free",
          description: "",
          parameters: { type: "object", properties: { x: {} }, required: ["x"] },
        },
      ]),
    );
    expect(await accepts('{"name": "note", "arguments": {}}')).toBe(true);
    expect(await accepts('{"name": "note", "arguments": {"b": 2.5}}')).toBe(true);
    expect(await accepts('{"name": "note", "arguments": {"a": true, "b": -1e3}}')).toBe(true);
    expect(await accepts('{"name": "note", "arguments": {"b": 1, "a": true}}')).toBe(false);
    expect(await accepts('{"name": "note", "arguments": {, "b": 1}}')).toBe(false);
    expect(await accepts('{"name": "free", "arguments": {"x": [1, {"y": null}]}}')).toBe(true);
  });

  it("refuses an empty tool list", () => {
    expect(() => toolCallGbnf([])).toThrow("a tool-call grammar needs at least one tool");
  });
});
