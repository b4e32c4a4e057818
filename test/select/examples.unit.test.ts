import { describe, expect, it } from "vitest";
import {
  changedExamples,
  EXAMPLES_MARK,
  issueExamples,
  MAX_EXAMPLE_CHARS,
  parseExampleOutputs,
  statedExamples,
  statementText,
} from "../../src/select/examples.js";
import { childrenCpuSeconds } from "../../src/select/workbench.js";

const FENCE = "```";

describe("issue examples", () => {
  it("takes Python and untagged fences, the prompt lines of sessions, and >>> runs outside fences", () => {
    const issue = [
      "MWE:",
      `${FENCE}python`,
      "import inspect",
      "from sympy import lambdify",
      "inspect.getsource(lambdify([], tuple([1])))",
      FENCE,
      "SymPy 1.10 gives",
      FENCE,
      "'def f():\\n    return (1)\\n'",
      FENCE,
      `${FENCE}bash`,
      "pip install sympy",
      FENCE,
      `${FENCE}pycon`,
      ">>> x = 1",
      ">>> for i in range(2):",
      "...     x += i",
      ">>> x",
      "2",
      FENCE,
      "And in the shell:",
      ">>> 0**-oo",
      "0",
      "",
      "text `inline()` is not an example",
    ].join("\n");
    expect(issueExamples(issue)).toEqual([
      "import inspect\nfrom sympy import lambdify\ninspect.getsource(lambdify([], tuple([1])))",
      "'def f():\\n    return (1)\\n'",
      "x = 1\nfor i in range(2):\n    x += i\nx",
      "0**-oo",
    ]);
  });

  it("leaves out blank, repeated and overlong blocks, an unclosed fence's tail is one block, and keeps at most five", () => {
    const block = (code: string) => `${FENCE}\n${code}\n${FENCE}`;
    const long = "x = 1\n".repeat(MAX_EXAMPLE_CHARS);
    const issue = [
      block(""),
      block("a()"),
      block("a()"),
      block(long),
      ...[1, 2, 3, 4, 5].map((k) => block(`b${k}()`)),
    ];
    expect(issueExamples(issue.join("\n"))).toEqual(["a()", "b1()", "b2()", "b3()", "b4()"]);
    expect(issueExamples(`${FENCE}py\nf(1)\nno closing fence`)).toEqual(["f(1)\nno closing fence"]);
    expect(issueExamples("no code at all")).toEqual([]);
  });

  it("reads the driver's last result line; a missing, malformed or wrong-sized one is null", () => {
    const out = `+ python driver.py\nnoise\n${EXAMPLES_MARK}["1\\n", null]\n`;
    expect(parseExampleOutputs(out, 2)).toEqual(["1\n", null]);
    expect(parseExampleOutputs(out, 3)).toBeNull();
    expect(parseExampleOutputs("Traceback (most recent call last):", 2)).toBeNull();
    expect(parseExampleOutputs(`${EXAMPLES_MARK}{"a": 1}`, 1)).toBeNull();
    expect(parseExampleOutputs(`${EXAMPLES_MARK}[1]`, 1)).toBeNull();
    expect(parseExampleOutputs(`${EXAMPLES_MARK}[`, 1)).toBeNull();
  });

  it("compares only the examples that ran stably both times", () => {
    expect(changedExamples(["0\n", "a", null], ["zoo\n", "a", "x"])).toEqual([0]);
    expect(changedExamples(["0\n", "a"], ["0\n", "a"])).toEqual([]);
    expect(changedExamples([null, "a"], ["x", null])).toBeNull();
  });
});

describe("values the issue states", () => {
  const issue = [
    "Simplifying gives the wrong sign:",
    `${FENCE}pycon`,
    ">>> from sympy import *",
    ">>> simplify(-x + 1)",
    "x - 1",
    `${FENCE}`,
    "I expected `1 - x`. Printing it:",
    `${FENCE}python`,
    'print("done")',
    `${FENCE}`,
    "raises ValueError: bad sign in version 1.1, and TrueDivide is wrong too",
  ].join("\n");
  const statement = statementText(issue, issueExamples(issue));

  it("the statement is the issue without the examples' code lines and prompts", () => {
    expect(statement).toBe(
      "Simplifying gives the wrong sign: ```pycon x - 1 ``` I expected `1 - x`. Printing it: ```python ``` raises ValueError: bad sign in version 1.1, and TrueDivide is wrong too",
    );
  });

  it("keeps the comment lines of the examples' code: that is where authors write the value", () => {
    const block = `${FENCE}python\nd = Derivative(A, x)\nd.kind\n# MatrixKind(NumberKind)\n${FENCE}`;
    const text = statementText(block, issueExamples(block));
    expect(text).toBe("```python # MatrixKind(NumberKind) ```");
    expect(statedExamples(text, ["UndefinedKind\n"], ["MatrixKind(NumberKind)\n"])).toEqual([0]);
  });

  it("counts a changed example whose new line the issue states as a whole token", () => {
    // the fix prints 1 - x, which the issue expects; another candidate prints -x + 1
    expect(statedExamples(statement, ["x - 1\n", "done\n"], ["1 - x\n", "done\n"])).toEqual([0]);
    expect(statedExamples(statement, ["x - 1\n", "done\n"], ["-x + 1\n", "done\n"])).toEqual([]);
  });

  it("does not count a line the base printed, an exception, one character, a part of a word, or the example's own code", () => {
    expect(statedExamples(statement, ["x - 1\n"], ["x - 1\nx - 1\n"])).toEqual([]);
    expect(statedExamples(statement, ["x - 1\n"], ["ValueError: bad sign\n"])).toEqual([]);
    expect(statedExamples(statement, ["x - 1\n"], ["1\n"])).toEqual([]);
    expect(statedExamples(statement, ["x - 1\n"], ["True\n"])).toEqual([]);
    expect(statedExamples(statement, ["NameError: name 'p' is not defined\n"], ['print("done")\n'])).toEqual(
      [],
    );
    // whitespace runs count as one space, in the output and in the issue
    expect(statedExamples(statement, ["x - 1\n"], ["  1   -  x\n"])).toEqual([0]);
  });

  it("is null when no example could be compared", () => {
    expect(statedExamples(statement, [null], ["1 - x\n"])).toBeNull();
  });
});

describe("CPU seconds from bash's times", () => {
  it("adds the children's user and system time (the second line)", () => {
    expect(childrenCpuSeconds("0m0.000s 0m0.002s\n1m5.139s 0m0.249s\n")).toBe(65.4);
    expect(childrenCpuSeconds("0m0.000s 0m0.002s\n")).toBeNull();
    expect(childrenCpuSeconds("")).toBeNull();
  });
});
