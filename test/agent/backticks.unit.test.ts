import { describe, expect, it } from "vitest";
import { createBackticksProtocol, findFencedBlocks } from "../../src/agent/protocols/backticks.js";

const proto = createBackticksProtocol("mswea_bash_command", null);
const parse = (content: string) => proto.parse({ role: "assistant", content });
const F = "```";

describe("backticks protocol", () => {
  it("takes the one tagged block as the command, without its final newline", () => {
    expect(parse(`THOUGHT: look\n\n${F}mswea_bash_command\nls -la\ncat x\n${F}\n`)).toEqual({
      ok: true,
      actions: [{ kind: "command", command: "ls -la\ncat x" }],
      thought: "THOUGHT: look",
    });
  });

  it("reads CRLF replies as LF, so no carriage return reaches bash", () => {
    expect(parse(`THOUGHT\r\n${F}mswea_bash_command\r\necho hi\r\n${F}\r\n`)).toEqual({
      ok: true,
      actions: [{ kind: "command", command: "echo hi" }],
      thought: "THOUGHT",
    });
  });

  it("accepts spaces and tabs after the opening and the closing fence", () => {
    expect(parse(`${F}mswea_bash_command  \t\necho hi\n${F}   \n`)).toEqual({
      ok: true,
      actions: [{ kind: "command", command: "echo hi" }],
      thought: "",
    });
  });

  it("keeps a heredoc body that contains a line of three backticks", () => {
    const command = [
      "cat > README.md << 'EOF'",
      "# Usage",
      `${F}python`,
      "import textstats",
      F,
      "EOF",
      "echo written",
    ].join("\n");
    expect(parse(`Writing docs.\n${F}mswea_bash_command\n${command}\n${F}\n`)).toEqual({
      ok: true,
      actions: [{ kind: "command", command }],
      thought: "Writing docs.",
    });
  });

  it("handles <<- heredocs with tab-indented terminators and ignores <<< here-strings", () => {
    const command = ["cat <<-END > a.md", `\t${F}`, "\tEND", 'grep -c x <<< "$v"'].join("\n");
    expect(parse(`${F}mswea_bash_command\n${command}\n${F}`)).toEqual({
      ok: true,
      actions: [{ kind: "command", command }],
      thought: "",
    });
  });

  it("says when there is no block, and names blocks with other tags", () => {
    expect(parse("I think the bug is in parse().")).toEqual({
      ok: false,
      error:
        "your reply has no ```mswea_bash_command block, so nothing ran. End it with exactly one block holding the command, in the form expected:\n```mswea_bash_command\n<command>\n```",
    });
    expect(parse(`${F}bash\nls\n${F}\n${F}\nx\n${F}`)).toEqual({
      ok: false,
      error:
        "your reply has no ```mswea_bash_command block, so nothing ran: it has 2 fenced blocks of other tags: ```bash block (line 1), ``` (no tag) block (line 4), and only ```mswea_bash_command blocks run. The one on line 1, in the form expected:\n```mswea_bash_command\nls\n```",
    });
    expect(parse(`Run:\n${F}bash\nls -la\n${F}`)).toEqual({
      ok: false,
      error:
        "your reply has no ```mswea_bash_command block, so nothing ran: its command is in a ```bash block (line 2), and only ```mswea_bash_command blocks run. The same command, in the form expected:\n```mswea_bash_command\nls -la\n```",
    });
  });

  it("says how many blocks were found when there are several", () => {
    expect(parse(`${F}mswea_bash_command\nls\n${F}\ntext\n${F}mswea_bash_command\npwd\n${F}\n`)).toEqual({
      ok: false,
      error:
        "your reply has 2 ```mswea_bash_command blocks (lines 1, 5), and a reply runs exactly one: nothing ran. Send one block now (or join the commands with && in one block) and the next after its output; your first, in the form expected:\n```mswea_bash_command\nls\n```",
      actions: ["ls", "pwd"],
    });
  });

  it("reports a block that is never closed", () => {
    expect(parse(`a\n${F}mswea_bash_command\nls\n`)).toEqual({
      ok: false,
      error:
        "the ```mswea_bash_command block opened on line 2 is never closed: nothing ran. Close it with a line of exactly three backticks, in the form expected:\n```mswea_bash_command\nls\n```",
    });
  });

  it("does not treat indented fences as fences", () => {
    expect(findFencedBlocks(`  ${F}mswea_bash_command\nls\n  ${F}`)).toEqual([]);
  });

  it("uses a custom tag", () => {
    const p = createBackticksProtocol("bash", null);
    expect(p.parse({ role: "assistant", content: `${F}bash\npwd\n${F}` })).toEqual({
      ok: true,
      actions: [{ kind: "command", command: "pwd" }],
      thought: "",
    });
  });

  it("uses model.action_regex when set (mini-swe-agent style)", () => {
    const p = createBackticksProtocol("ignored", "```bash\\s*\\n(.*?)\\n```");
    expect(p.parse({ role: "assistant", content: `x\n${F}bash\nls\n${F}` })).toEqual({
      ok: true,
      actions: [{ kind: "command", command: "ls" }],
      thought: "x",
    });
    expect(p.parse({ role: "assistant", content: "none" })).toEqual({
      ok: false,
      error: "expected exactly one action matching ```bash\\s*\\n(.*?)\\n```, found 0.",
      actions: [],
    });
  });
});
