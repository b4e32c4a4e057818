import { describe, expect, it } from "vitest";
import { truncateMiddle } from "../../src/agent/truncate.js";

describe("truncateMiddle", () => {
  it("leaves short text alone and keeps head and tail of long text with a count", () => {
    expect(truncateMiddle("abc", 3)).toBe("abc");
    expect(truncateMiddle("0123456789", 4)).toBe(
      "01\n[... 6 characters omitted: the output was 10 characters, over the 4-character limit; narrow the command (grep, head, tail, sed -n) to see the part you need ...]\n89",
    );
  });
});
