import { describe, expect, it } from "vitest";
import { createBackticksProtocol } from "../../src/agent/protocols/backticks.js";
import { fencedActionGbnf, fencedActionRegex } from "../../src/agent/protocols/fenced-constraint.js";
import { xgrammarGbnf, xgrammarRegex } from "../support/xgrammar.js";

const TAG = "mswea_bash_command";
const F = "```";
const protocol = createBackticksProtocol(TAG, null);
const parses = (text: string) => protocol.parse({ role: "assistant", content: text });
const jsRegex = new RegExp(`^(?:${fencedActionRegex(TAG)})$`);

/** Replies the backticks parser accepts with one action, all inside the constrained format. */
const VALID = [
  `THOUGHT: look around.\n\n${F}${TAG}\nls -la\n${F}`,
  `${F}${TAG}\nls\n${F}`,
  `${F}${TAG}\nls\n${F}\n\n  \t`,
  `Two lines\nof thought, with \`inline\` code and \`\`double\`\` ticks.\n${F}${TAG}\ncd src && grep -rn "def parse" . | head\n${F}`,
  `${F}${TAG}\nedit-tool str_replace --file /testbed/a.py << 'PATCH'\n---OLD---\n    return a - b\n---NEW---\n    return a + b\nPATCH\n${F}\n`,
  `${F}${TAG}\ncat > notes.md << 'EOF'\n${F}python\nprint(1)\n${F}\` \nEOF\n${F}`,
  `${F}${TAG}\nprintf '\`\`x'\n\n\nls\n${F}`,
  `Ünïcödé thought — fine.\n${F}${TAG}\necho "ö"\n${F}`,
  `${F}${TAG}\n${F}${F}\n${F}`,
];

/** Replies the parser rejects: the constrained format must reject them too. */
const INVALID = [
  `no block at all`,
  `${F}${TAG}\nls\n${F}\n${F}${TAG}\npwd\n${F}`,
  `${F}${TAG}\nls\n`,
  `${F}bash\nls\n${F}`,
  "",
];

/** Replies the parser accepts that the constrained format leaves out, on purpose (fenced-constraint.ts). */
const STRICTER = [
  `${F}python\nx = 1\n${F}\n${F}${TAG}\nls\n${F}`,
  `${F}${TAG}\nls\n${F}\nI ran ls.`,
  `${F}${TAG}\nls\n${F}\ntrailing ${F}${TAG}\n`,
  `${F}${TAG}\r\nls\r\n${F}`,
  `${F}${TAG}\ncat << 'EOF'\n${F}\nEOF\n${F}`,
  `${F}${TAG}\n${F}`,
];

describe("the fenced action format as a regex and a GBNF grammar", () => {
  it("accepts every valid reply (JavaScript's engine, and xgrammar for the regex and the grammar)", async () => {
    const re = await xgrammarRegex(fencedActionRegex(TAG));
    const gbnf = await xgrammarGbnf(fencedActionGbnf(TAG));
    for (const text of VALID) {
      const parsed = parses(text);
      expect(parsed.ok && parsed.actions.length, text).toBe(1);
      expect(jsRegex.test(text), text).toBe(true);
      expect(await re(text), text).toBe(true);
      expect(await gbnf(text), text).toBe(true);
    }
  });

  it("rejects two blocks, none, an unterminated one, another tag, text after the block", async () => {
    const re = await xgrammarRegex(fencedActionRegex(TAG));
    const gbnf = await xgrammarGbnf(fencedActionGbnf(TAG));
    for (const text of INVALID) {
      expect(parses(text).ok, text).toBe(false);
      expect(jsRegex.test(text), text).toBe(false);
      expect(await re(text), text).toBe(false);
      expect(await gbnf(text), text).toBe(false);
    }
  });

  it("is stricter than the parser where documented", async () => {
    const re = await xgrammarRegex(fencedActionRegex(TAG));
    const gbnf = await xgrammarGbnf(fencedActionGbnf(TAG));
    for (const text of STRICTER) {
      expect(parses(text).ok, text).toBe(true);
      expect([jsRegex.test(text), await re(text), await gbnf(text)], text).toEqual([false, false, false]);
    }
  });

  it("never accepts what the parser rejects (random replies over the characters that matter)", async () => {
    const re = await xgrammarRegex(fencedActionRegex(TAG));
    const pieces = ["`", F, `${F}${TAG}`, "\n", " ", "a", "<< EOF", "EOF", "\t", "\r"];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor(seed / 65536) % n;
    };
    let matched = 0;
    const some = (n: number) => Array.from({ length: rand(n) }, () => pieces[rand(pieces.length)]).join("");
    for (let i = 0; i < 4000; i++) {
      const text = `${rand(2) ? `${some(4)}\n` : ""}${F}${TAG}\n${some(8)}${rand(4) ? `\n${F}` : ""}${rand(3) ? "" : some(3)}`;
      const js = jsRegex.test(text);
      if (i % 10 === 0) expect(await re(text), text).toBe(js);
      if (!js) continue;
      matched++;
      const parsed = parses(text);
      expect(parsed.ok && parsed.actions.length, text).toBe(1);
    }
    expect(matched).toBeGreaterThan(100);
  });

  it("keeps to the regex subset every server engine takes", () => {
    const source = fencedActionRegex("a.b+c-d_1");
    let inClass = false;
    for (let i = 0; i < source.length; i++) {
      const c = source[i];
      if (c === "\\") {
        expect("nrt.+".includes(source[i + 1]), `escape \\${source[i + 1]} at ${i}`).toBe(true);
        i++;
      } else if (inClass) {
        if (c === "]") inClass = false;
      } else if (c === "[") inClass = true;
      else {
        expect("{}^$.".includes(c), `${c} at ${i}`).toBe(false);
        if (c === "(") expect(source[i + 1], `group at ${i}`).not.toBe("?");
        if ("*+?".includes(c)) expect(source[i + 1] === "?", `lazy quantifier at ${i}`).toBe(false);
      }
    }
    expect(new RegExp(`^(?:${source})$`).test("```a.b+c-d_1\nls\n```")).toBe(true);
    expect(new RegExp(`^(?:${source})$`).test("```aXb+c-d_1\nls\n```")).toBe(false);
  });
});
