import { describe, expect, it } from "vitest";
import { localize } from "../../src/localize/localize.js";
import { paths, py, ranked, snapshotOf } from "./support.js";

/** A small project: an API module that calls an engine, which uses helpers; plus tests and docs. */
const PROJECT = {
  "pkg/__init__.py": "from .api import convert\n",
  "pkg/api.py": py(
    "from .core.engine import run_pipeline\n\n\ndef convert(data, fmt):\n    table = run_pipeline(data)\n    return table.render(fmt)\n",
    "api",
  ),
  "pkg/core/__init__.py": "",
  "pkg/core/engine.py": py(
    "def run_pipeline(data):\n    stages = [s for s in data]\n    if not stages:\n        raise ValueError('empty pipeline: nothing to convert')\n    return stages[0].collect(stages)\n",
    "engine",
  ),
  "pkg/util.py": py("def render(table, fmt):\n    return fmt.format(table)\n", "util"),
  "pkg/parser.py": py(
    "class Parser:\n    def __init__(self, text):\n        self.text = text\n\n    def parse_header(self, line):\n        fields = line.split(',')\n        return fields[:-1]\n",
    "parser",
  ),
  // a module that talks about headers and fields a lot, without defining the method
  "pkg/report.py": py(
    "def header_fields(header):\n    # header fields of the header line: every header field is kept\n    return [f for f in header.split(',') if f]  # fields of the header\n",
    "report",
  ),
  "tests/test_parser.py": py(
    "from pkg.parser import Parser\n\n\ndef test_parse_empty():\n    assert Parser('').parse_header('') == []\n",
    "tparser",
  ),
  "docs/usage.rst": "Usage\n=====\n\nCall convert() with a pipeline and a format.\n",
};

describe("the ranking", () => {
  it("ranks the file of a traceback's innermost project frame first (frames outside the repository are skipped)", async () => {
    const issue = [
      "Crash on an empty list",
      "",
      "```",
      "Traceback (most recent call last):",
      '  File "/home/me/scratch/repro.py", line 3, in <module>',
      "    convert([], 'csv')",
      '  File "/usr/lib/python3/site-packages/pkg/api.py", line 9, in convert',
      "    table = run_pipeline(data)",
      '  File "/usr/lib/python3/site-packages/pkg/core/engine.py", line 8, in run_pipeline',
      "    raise ValueError('empty pipeline: nothing to convert')",
      '  File "/usr/lib/python3.11/logging/__init__.py", line 1, in emit',
      "ValueError: empty pipeline: nothing to convert",
      "```",
    ].join("\n");
    const r = await ranked(PROJECT, issue);
    expect(r.files[0].path).toBe("pkg/core/engine.py");
    expect(r.files[0].why).toContain("traceback: innermost frame in the repository, line 8 in run_pipeline");
    expect(r.files[0].why).toContain("error message found: `empty pipeline: nothing to convert`");
    expect(paths(r.files).indexOf("pkg/api.py")).toBeGreaterThan(0);
    expect(r.files.find((f) => f.path === "pkg/api.py")!.why).toContain(
      "traceback: outermost frame in the repository, line 9 in convert",
    );
    // the frame's function is the first symbol
    expect(r.symbols[0]).toMatchObject({ path: "pkg/core/engine.py", name: "run_pipeline", line: 5 });
  });

  it("finds the definition of a backticked method name, even when another file says its words more often", async () => {
    const issue =
      "Header parsing drops the last field\n\n`Parser.parse_header` loses the last of the header fields: for `a,b,c` I get `['a', 'b']`.";
    const r = await ranked(PROJECT, issue);
    expect(r.files[0].path).toBe("pkg/parser.py");
    expect(r.files[0].why).toContain("defines `Parser`, `Parser.parse_header`, in backticks in the issue");
    expect(r.files[0].why).toContain(
      "defines `Parser.parse_header`, written with its class or module in the issue",
    );
    expect(r.symbols[0]).toEqual({
      path: "pkg/parser.py",
      name: "Parser.parse_header",
      line: 9,
      score: r.symbols[0].score,
    });
    expect(r.symbols[0].score).toBeGreaterThan(0);
  });

  it("does not rank a test file the issue names above the code it tests", async () => {
    const issue =
      "tests/test_parser.py::test_parse_empty fails\n\nRunning `pytest tests/test_parser.py` on main gives one failure, test_parse_empty.";
    const r = await ranked(PROJECT, issue);
    const order = paths(r.files);
    expect(order).toContain("tests/test_parser.py");
    expect(order.indexOf("pkg/parser.py")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("pkg/parser.py")).toBeLessThan(order.indexOf("tests/test_parser.py"));
    expect(r.files.find((f) => f.path === "pkg/parser.py")!.why).toContain(
      "tested by tests/test_parser.py, which the issue points at",
    );
    expect(r.files.find((f) => f.path === "tests/test_parser.py")!.why.at(-1)).toBe("test file: score x0.2");
  });

  it("still ranks an issue without any code signal, by text similarity", async () => {
    const files = {
      "shop/invoice.py": py(
        "def invoice_total(lines, currency, rate):\n    # totals of the invoice in the customer's currency after conversion\n    total = sum(l.amount for l in lines)\n    return round(total * rate, 0)  # currency conversion, rounded\n",
        "invoice",
      ),
      "shop/cart.py": py(
        "def add_to_cart(cart, item):\n    cart.items.append(item)\n    return cart\n",
        "cart",
      ),
      "shop/users.py": py("def login(user, password):\n    return user.check(password)\n", "users"),
    };
    const issue =
      "When a customer pays in another currency the invoice totals come out rounded to whole units after the conversion; the cents are lost.";
    const r = await ranked(files, issue);
    expect(r.files[0].path).toBe("shop/invoice.py");
    for (const f of r.files)
      for (const why of f.why) expect(why).toMatch(/^(text similarity|file name|folder)/);
  });

  it("skips binary and huge files", async () => {
    const binary = Buffer.concat([
      Buffer.from("pipeline convert engine "),
      Buffer.from([0, 1, 2, 0]),
      Buffer.from(" pipeline"),
    ]);
    const huge = `# pipeline convert engine\n${"x = 'pipeline convert engine'\n".repeat(200)}`;
    const { snapshot } = await snapshotOf(
      { ...PROJECT, "pkg/data.bin": binary, "pkg/generated.py": huge },
      { maxFileBytes: 4000 },
    );
    expect(snapshot.skipped).toEqual({ binary: 1, huge: 1, unreadable: 0 });
    expect(snapshot.files.map((f) => f.path)).not.toContain("pkg/data.bin");
    expect(snapshot.files.map((f) => f.path)).not.toContain("pkg/generated.py");
    const r = await localize("pipeline convert engine", snapshot, { topK: 20, topSymbols: 0 });
    expect(paths(r.files)).not.toContain("pkg/data.bin");
    expect(paths(r.files)).not.toContain("pkg/generated.py");
    expect(r.files.length).toBeGreaterThan(0);
  });

  it("refuses an empty or missing issue text", async () => {
    const { snapshot } = await snapshotOf(PROJECT);
    await expect(localize("  \n", snapshot, { topK: 5, topSymbols: 5 })).rejects.toThrow(
      "the issue text is empty: nothing to localize from",
    );
    await expect(localize(undefined, snapshot, { topK: 5, topSymbols: 5 })).rejects.toThrow(
      "the issue text is missing (problem_statement is absent): nothing to localize from",
    );
  });
});
