import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLES_DRIVER, parseExampleOutputs } from "../../src/select/examples.js";

describe("the examples driver", () => {
  /** Runs the driver with Debian's Python in a folder holding `pkg` (a package) and `src/lib2` (one in a src layout). */
  function drive(examples: string[], files: string[]): unknown {
    const dir = mkdtempSync(join(tmpdir(), "patchloop-examples-"));
    try {
      mkdirSync(join(dir, "pkg", "sub"), { recursive: true });
      writeFileSync(join(dir, "pkg", "__init__.py"), 'def greet():\n    return "hi"\n');
      writeFileSync(join(dir, "pkg", "sub", "__init__.py"), "");
      writeFileSync(join(dir, "pkg", "sub", "mod.py"), "");
      mkdirSync(join(dir, "src", "lib2"), { recursive: true });
      writeFileSync(join(dir, "src", "lib2", "__init__.py"), "LIMIT = 7\n");
      writeFileSync(join(dir, "driver.py"), EXAMPLES_DRIVER);
      writeFileSync(join(dir, "input.json"), JSON.stringify({ examples, files }));
      const out = execFileSync("/usr/bin/python3", ["driver.py", "input.json"], {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, PYTHONHASHSEED: "0" },
      });
      return parseExampleOutputs(out, examples.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("runs the examples as one session after the changed files' top packages are star-imported", () => {
    expect(
      drive(
        ["a = greet()", "a\nLIMIT", "b = 1 +", "print(len(a))\nundefined_name", "import os\nos.urandom(4)"],
        ["pkg/sub/mod.py", "src/lib2/x.py", "setup.py"],
      ),
    ).toEqual([
      "",
      "'hi'\n7\n",
      null, // does not parse
      "2\nNameError: name 'undefined_name' is not defined\n",
      null, // prints something else the second time
    ]);
  });

  it("without changed package files the issue's own imports are all there is", () => {
    expect(drive(["greet()"], ["setup.py"])).toEqual(["NameError: name 'greet' is not defined\n"]);
  });
});
