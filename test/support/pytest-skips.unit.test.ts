import { describe, expect, it } from "vitest";
import { pytestSkipNote } from "./pytest-skips.js";

describe("the suite says what it skipped without pytest", () => {
  const files = [
    { path: "test/select/select-local.test.ts", skipped: 5, needsPytest: true },
    { path: "test/select/file-reads.test.ts", skipped: 7, needsPytest: true },
    { path: "test/cli/cli.test.ts", skipped: 3, needsPytest: false },
    { path: "test/grading/eval-v5.test.ts", skipped: 0, needsPytest: true },
  ];

  it("names the files, the counts and the package", () => {
    expect(pytestSkipNote(files, false)).toBe(
      "12 tests were skipped because /usr/bin/python3 -m pytest is missing (the grading and selection tests run " +
        "the repositories' own tests with it):\n" +
        "  test/select/file-reads.test.ts: 7 skipped\n" +
        "  test/select/select-local.test.ts: 5 skipped\n" +
        "Install Debian's python3-pytest (sudo apt-get install python3-pytest) to run them.\n",
    );
  });

  it("says nothing with pytest there, or when no file that needs it skipped a test", () => {
    expect(pytestSkipNote(files, true)).toBeNull();
    expect(pytestSkipNote([files[2], files[3]], false)).toBeNull();
  });
});
