import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { SwebenchInstance } from "../dataset/types.js";
import type { Environment } from "../environments/types.js";
import { shellQuote } from "../util/shell-quote.js";

/**
 * The Python environment the tests of one instance run with when they run on the host (local,
 * bwrap): which interpreter, which folders come first on the import path, which variables. Set by
 * a `--specs` entry (`local:`), the repository's built-in defaults below, and `--python`.
 */
export interface PythonEnvSpec {
  /** The interpreter: an absolute path or a name looked up on the environment's PATH (default `python3`). */
  python?: string;
  /** A virtual environment folder: its `bin/` goes first on PATH and its `python` runs the tests. */
  venv?: string;
  /**
   * PYTHONPATH entries, relative to the work tree unless absolute. Default: `src` when the
   * repository keeps its package under `src/` (flask, pytest), else the work tree itself.
   */
  pythonpath?: string[];
  /** The import name of the repository's own package, checked to come from the work tree. */
  package?: string;
  /** Variables set for the tests. */
  env?: Record<string, string>;
  /** Commands run in the work tree before the tests (e.g. a file `pip install -e` would write). */
  setup?: string[];
}

/** Import names of the repositories' own packages where they differ from the repository's name. */
const PACKAGES: Readonly<Record<string, string>> = {
  "pytest-dev/pytest": "_pytest",
  "scikit-learn/scikit-learn": "sklearn",
  "pvlib/pvlib-python": "pvlib",
};

/** What `pip install -e` would leave in the work tree and the tests need, by repository. */
const HOST_DEFAULTS: Readonly<Record<string, PythonEnvSpec>> = {
  // setuptools-scm writes this file at install time; it is git-ignored, so a checkout lacks it.
  "pytest-dev/pytest": {
    setup: [
      `test -f src/_pytest/_version.py || printf '%s\\n' "version = __version__ = '8.0.0.dev0'" "version_tuple = (8, 0, 0, 'dev0')" > src/_pytest/_version.py`,
    ],
  },
};

/** The import name of the package a repository provides: the table above, else its name with `-` as `_`. */
export function packageOf(repo: string): string {
  return PACKAGES[repo] ?? (repo.split("/").at(-1) ?? repo).toLowerCase().replaceAll("-", "_");
}

/**
 * The spec of one instance: the repository's defaults, then the `--specs` entry (keys it sets win),
 * then `--python` (which replaces both `python` and `venv`).
 */
export function pythonSpecFor(
  instance: SwebenchInstance,
  fromSpecs?: PythonEnvSpec,
  flag?: string,
): PythonEnvSpec {
  const merged: PythonEnvSpec = { ...HOST_DEFAULTS[instance.repo], ...fromSpecs };
  if (flag) {
    merged.python = flag;
    delete merged.venv;
  }
  merged.package ??= packageOf(instance.repo);
  return merged;
}

/** The Python the tests of an instance run with on the host, as declared before they run. */
export interface DeclaredPython {
  /** The interpreter as found in the environment (absolute path; a venv's `bin/python`). */
  interpreter: string;
  venv?: string;
  /** PYTHONPATH as exported (absolute paths, `:`-joined). */
  pythonpath: string;
  /** Every variable exported for the tests (PATH excepted). */
  env: Record<string, string>;
  /** Folder of the `python`, `python3` and `pytest` commands that run `interpreter`. */
  binDir: string;
  /** The lines at the top of eval.sh that set all of this. */
  lines: string[];
  setup: string[];
}

/** Raised when the declared interpreter or venv does not exist: an infrastructure error, with the fix. */
export class PythonEnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PythonEnvError";
  }
}

const q = shellQuote;

/**
 * Finds the interpreter in `env`, writes `python`/`python3`/`pytest` commands for it into
 * `scratchDir`, and returns the eval.sh lines that put them first on PATH, set PYTHONPATH to the
 * work tree's code, keep the user's own site-packages (`~/.local`) out and clear PYTHONHOME.
 */
export async function declarePython(
  env: Environment,
  repoDir: string,
  scratchDir: string,
  spec: PythonEnvSpec,
  hostRepoDir = repoDir,
): Promise<DeclaredPython> {
  let interpreter: string;
  if (spec.venv) {
    interpreter = `${spec.venv.replace(/\/+$/, "")}/bin/python`;
    const r = await env.exec(`test -x ${q(interpreter)}`, { timeout: 30 });
    if (r.returncode !== 0) {
      throw new PythonEnvError(
        `the virtual environment ${spec.venv} has no ${interpreter}; make it with python3 -m venv, or fix the spec's local.venv`,
      );
    }
  } else {
    const wanted = spec.python ?? "python3";
    const r = await env.exec(`command -v ${q(wanted)}`, { timeout: 30 });
    const found = r.output.trim().split("\n").at(-1) ?? "";
    if (r.returncode !== 0 || !found.startsWith("/")) {
      throw new PythonEnvError(
        `no Python interpreter ${JSON.stringify(wanted)} in the environment (command -v found nothing); ` +
          "pass --python /path/to/python3 (e.g. /usr/bin/python3 with Debian's python3-pytest), or set local.python in --specs",
      );
    }
    interpreter = found;
  }
  const binDir = `${scratchDir}/patchloop-python-bin`;
  const wrappers: Array<[string, string]> = [
    ["python", `exec ${q(interpreter)} "$@"`],
    ["python3", `exec ${q(interpreter)} "$@"`],
    ["pytest", `exec ${q(interpreter)} -m pytest "$@"`],
  ];
  for (const [name, body] of wrappers) await env.writeFile(`${binDir}/${name}`, `#!/bin/sh\n${body}\n`);
  await env.exec(`chmod +x ${wrappers.map(([n]) => q(`${binDir}/${n}`)).join(" ")}`, { timeout: 30 });

  const pkg = spec.package;
  const entries = spec.pythonpath ?? (pkg && existsSync(join(hostRepoDir, "src", pkg)) ? ["src"] : ["."]);
  const pythonpath = entries
    .map((e) => (isAbsolute(e) ? e : e === "." ? repoDir : join(repoDir, e)))
    .join(":");
  const vars: Record<string, string> = { PYTHONPATH: pythonpath, PYTHONNOUSERSITE: "1" };
  if (spec.venv) vars.VIRTUAL_ENV = spec.venv;
  Object.assign(vars, spec.env);
  const path = [binDir, ...(spec.venv ? [`${spec.venv.replace(/\/+$/, "")}/bin`] : [])].map(q).join(":");
  const lines = [
    `export PATH=${path}:"$PATH"`,
    ...Object.entries(vars).map(([k, v]) => `export ${k}=${q(v)}`),
    "unset PYTHONHOME",
  ];
  return {
    interpreter,
    venv: spec.venv,
    pythonpath,
    env: vars,
    binDir,
    lines,
    setup: spec.setup ?? [],
  };
}

/** What the interpreter said about itself in the environment, just before the tests ran. */
export interface PythonProbe {
  /** `sys.executable`. */
  executable: string;
  /** `3.11.2`. */
  version: string;
  /** `sys.path` as the tests see it. */
  path: string[];
  /** The import name checked, the file it is imported from (null: not importable), and whether that is in the work tree. */
  package: { name: string; file: string | null; inside_work_tree: boolean } | null;
  /** Installed distributions outside the work tree, `name==version`, sorted. */
  distributions: string[];
}

// Runs on any Python from 2.7 on (SWE-bench images carry 3.5 to 3.11): no f-strings.
const PROBE = String.raw`
import json, os, sys
name, tree = sys.argv[1], os.path.realpath(sys.argv[2])
out = {"executable": sys.executable, "version": sys.version.split()[0], "path": list(sys.path)}
# Test runners put the repository first (python -m pytest: the working folder; pytest: the rootdir
# of a tests package; django and sympy: their own scripts); the probe looks as they do.
sys.path.insert(0, tree)
def inside(p):
    return p == tree or p.startswith(tree + os.sep)
pkg = None
if name:
    pkg = {"name": name, "file": None, "inside_work_tree": False}
    try:
        import importlib.util
        spec = importlib.util.find_spec(name)
        origin = None
        if spec is not None:
            origin = spec.origin
            if (not origin or origin == "namespace") and spec.submodule_search_locations:
                origin = list(spec.submodule_search_locations)[0]
        if origin:
            pkg["file"] = os.path.realpath(origin)
            pkg["inside_work_tree"] = inside(pkg["file"])
    except Exception as e:
        pkg["error"] = repr(e)
out["package"] = pkg
dists = set()
try:
    import importlib.metadata as md
    for d in md.distributions():
        try:
            where = os.path.realpath(str(d.locate_file("")))
            if not inside(where):
                dists.add("%s==%s" % (d.metadata["Name"], d.version))
        except Exception:
            pass
except Exception:
    pass
out["distributions"] = sorted(dists)
sys.stdout.write("PATCHLOOP_PROBE " + json.dumps(out) + "\n")
`;

/**
 * Asks the interpreter that `lines` (eval.sh's environment lines, activation included) make
 * `python` about itself: executable, version, sys.path, where `pkg` is imported from, and the
 * installed distributions. Undefined when no Python answers (a repository without Python).
 */
export async function probePython(
  env: Environment,
  repoDir: string,
  scratchDir: string,
  lines: string[],
  pkg: string | undefined,
): Promise<PythonProbe | undefined> {
  const file = `${scratchDir}/patchloop-probe.py`;
  await env.writeFile(file, PROBE);
  // `python` as eval.sh's commands see it (a conda env, the host's declared one), else `python3`.
  const run = `"$(command -v python || command -v python3)" ${q(file)} ${q(pkg ?? "")} ${q(repoDir)}`;
  const script = [...lines, `cd ${q(repoDir)}`, run].join("\n");
  const r = await env.exec(`bash -c ${q(script)} 2>&1`, { cwd: repoDir, timeout: 120 });
  const line = r.output.split("\n").find((l) => l.startsWith("PATCHLOOP_PROBE "));
  if (!line) return undefined;
  try {
    return JSON.parse(line.slice("PATCHLOOP_PROBE ".length)) as PythonProbe;
  } catch {
    return undefined;
  }
}
