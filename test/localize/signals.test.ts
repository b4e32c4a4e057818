import { describe, expect, it } from "vitest";
import { importedFiles } from "../../src/localize/imports.js";
import { issueSignals } from "../../src/localize/issue-signals.js";
import { RepoIndex } from "../../src/localize/repo-index.js";
import { paths, py, ranked, snapshotOf } from "./support.js";

describe("paths written in the issue", () => {
  const FILES = {
    "pkg/__init__.py": "from .core import run\n",
    "pkg/core.py": py("def run(x):\n    return x\n", "core"),
    "pkg/sub/__init__.py": "",
    "setup.py": "from setuptools import setup\nsetup(name='pkg')\n",
  };

  it("resolve a bare file name only when one file has that name", async () => {
    const { snapshot } = await snapshotOf(FILES);
    const index = RepoIndex.of(snapshot);
    const path = (i: number | undefined) => (i === undefined ? undefined : snapshot.files[i].path);
    expect(path(index.resolvePath("__init__.py"))).toBeUndefined();
    expect(path(index.resolvePath("setup.py"))).toBe("setup.py");
    expect(path(index.resolvePath("sub/__init__.py"))).toBe("pkg/sub/__init__.py");
    expect(path(index.resolvePath("/site-packages/pkg/__init__.py"))).toBe("pkg/__init__.py");
  });

  it("do not make an arbitrary package's __init__.py a file the issue names", async () => {
    const r = await ranked(
      FILES,
      "run fails without an `__init__.py`\n\nWith an empty `__init__.py` next to my module, run(x) returns None.",
    );
    for (const f of r.files) expect(f.why.join("\n")).not.toContain("path named in the issue");
    const s = await ranked(FILES, "setup.py is wrong\n\nThe name in setup.py should be pkg2.");
    expect(s.files[0].path).toBe("setup.py");
    expect(s.files[0].why[0]).toBe("path named in the issue: `setup.py`");
  });
});

describe("test files the issue points at", () => {
  it("are about the module their name says only when it is a test module's name", async () => {
    const files = {
      "pkg/__init__.py": "from .loader import load\n",
      "pkg/loader.py": py("def load(path):\n    return open(path).read()\n", "loader"),
      "pkg/other/__init__.py": "",
      "tests/test_loader.py": py("from pkg.loader import load\n\n\ndef test_load():\n    assert load\n", "t"),
      "tests/data/__init__.py": "",
    };
    const r = await ranked(
      files,
      "Loading fails\n\nWith tests/data/__init__.py present the loader gives up.",
    );
    for (const f of r.files) expect(f.why.join("\n")).not.toContain("tested by tests/data/__init__.py");
    const t = await ranked(files, "Loading fails\n\ntests/test_loader.py fails on main.");
    expect(t.files.find((f) => f.path === "pkg/loader.py")?.why).toContain(
      "tested by tests/test_loader.py, which the issue points at",
    );
    expect(t.files.find((f) => f.path === "pkg/other/__init__.py")).toBeUndefined();
  });
});

describe("identifiers of the issue", () => {
  it("count a comment inside the issue's code as prose, not as code", () => {
    const s = issueSignals(
      "Sum is zero\n\n```python\ne = compute_total(m)  # the identity should hold\n# elements summed\nprint('#not a comment')\n```\n>>> compute_total(m) # identity again",
    );
    expect(s.identifiers.get("compute_total")).toEqual({
      count: 2,
      title: false,
      backticked: false,
      code: true,
    });
    expect(s.identifiers.get("identity")).toEqual({ count: 2, title: false, backticked: false, code: false });
    expect(s.identifiers.get("elements")?.code).toBe(false);
    expect(s.identifiers.get("not")?.code).toBe(true);
  });
});

describe("command-line options and settings", () => {
  it("are read as the names code gives them; prose words with hyphens and paths are not", () => {
    const s = issueSignals(
      "Module imported twice under `import-mode=importlib`\n\nRunning `pytest --import-mode importlib` in a built-in way with --log-level debug; see /site-packages/pkg and `x-1`.\n```ini\nignore-paths = a\n```",
    );
    // the title's and backticks' first, then the code's, then the prose's
    expect(s.optionNames).toEqual([
      "import_mode",
      "ImportMode",
      "ignore_paths",
      "IgnorePaths",
      "log_level",
      "LogLevel",
    ]);
    expect(s.identifiers.get("ImportMode")).toMatchObject({ backticked: true, code: false });
    expect(s.identifiers.get("ignore_paths")).toMatchObject({ backticked: false, code: true });
    expect(s.identifiers.has("built_in")).toBe(false);
  });

  it("find the code that defines the setting behind an option", async () => {
    const files = {
      "pkg/__init__.py": "",
      "pkg/paths.py": py(
        "class ImportMode:\n    prepend = 'prepend'\n    importlib = 'importlib'\n\n\ndef import_path(path, mode=ImportMode.prepend):\n    if mode == ImportMode.importlib:\n        return load_module(path)\n",
        "paths",
      ),
      "pkg/loader.py": py(
        "def load_module(path):\n    # modules are imported once: an imported module is kept, a module imported twice is the same module\n    import importlib\n    return importlib.import_module(path)\n",
        "loader",
      ),
      "pkg/config.py": py("def parse(args):\n    return {a: True for a in args}\n", "config"),
    };
    const r = await ranked(
      files,
      "Module imported twice under `import-mode=importlib`\n\nWith `--import-mode=importlib` my module is imported twice.",
    );
    expect(r.files[0].path).toBe("pkg/paths.py");
    expect(r.files[0].why).toContain("defines `ImportMode`, in backticks in the issue");
  });
});

describe("the module graph", () => {
  const FILES = {
    "pkg/__init__.py": "from .api import convert\n",
    "pkg/api.py": py(
      "from .core import engine\nfrom pkg import util\nimport pkg.extra.plugins\nimport json\n\n\ndef convert(rows):\n    return engine.run(rows)\n",
      "api",
    ),
    "pkg/util.py": py("def tidy(x):\n    return x\n", "util"),
    "pkg/extra/__init__.py": "",
    "pkg/extra/plugins.py": py("PLUGINS = []\n", "plugins"),
    "pkg/core/__init__.py": "",
    // the engine and the cache say the issue's words alike: only the import tells them apart
    "pkg/core/engine.py": py(
      "def run(rows):\n    # rows dropped when empty\n    return [r for r in rows if r]\n",
      "eng",
    ),
    "pkg/cache.py": py(
      "def render(rows):\n    # rows dropped when empty\n    return [r for r in rows if r]\n",
      "fmt",
    ),
  };

  it("resolves a file's relative and absolute imports to the repository's files", async () => {
    const { snapshot } = await snapshotOf(FILES);
    const index = RepoIndex.of(snapshot);
    const api = snapshot.files.find((f) => f.path === "pkg/api.py")!;
    const imported = (await importedFiles(api, index)).map((i) => snapshot.files[i].path).sort();
    // `from .core import engine` imports the package `pkg.core` and its module `engine`
    expect(imported).toEqual([
      "pkg/__init__.py",
      "pkg/core/__init__.py",
      "pkg/core/engine.py",
      "pkg/extra/plugins.py",
      "pkg/util.py",
    ]);
  });

  it("follows a name a package re-exports to the module it comes from", async () => {
    const { snapshot } = await snapshotOf({
      "lib/__init__.py": "",
      "lib/_code/__init__.py":
        "from .code import ExceptionInfo  # noqa\nfrom .source import Source  # noqa\n",
      "lib/_code/code.py": py("class ExceptionInfo:\n    pass\n", "code"),
      "lib/_code/source.py": py("class Source:\n    pass\n", "src"),
      "lib/_code/unused.py": py("X = 1\n", "unused"),
      // `import lib._code` then `lib._code.ExceptionInfo`; and `from lib._code import Source`
      "lib/api.py": py("import lib._code\n\n\ndef raises():\n    return lib._code.ExceptionInfo()\n", "api"),
      "lib/other.py": py("from lib._code import Source\n", "other"),
    });
    const index = RepoIndex.of(snapshot);
    const importsOf = async (path: string) =>
      (await importedFiles(snapshot.files.find((f) => f.path === path)!, index))
        .map((i) => snapshot.files[i].path)
        .sort();
    expect(await importsOf("lib/api.py")).toEqual(["lib/_code/__init__.py", "lib/_code/code.py"]);
    expect(await importsOf("lib/other.py")).toEqual(["lib/_code/__init__.py", "lib/_code/source.py"]);
  });

  it("lifts what the first files of the ranking import, and says so", async () => {
    const r = await ranked(
      FILES,
      "`convert` drops rows\n\nCalling `convert` on my rows drops the empty ones.",
    );
    expect(r.files[0].path).toBe("pkg/api.py");
    const order = paths(r.files);
    expect(order.indexOf("pkg/core/engine.py")).toBeGreaterThan(0);
    expect(order.indexOf("pkg/core/engine.py")).toBeLessThan(order.indexOf("pkg/cache.py"));
    expect(r.files.find((f) => f.path === "pkg/core/engine.py")!.why).toContain(
      "imported by pkg/api.py (ranked 1)",
    );
    expect(r.files.find((f) => f.path === "pkg/cache.py")!.why.join("\n")).not.toContain("imported by");
  });
});
