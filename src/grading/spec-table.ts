/**
 * What the official harness (v4.1.0, `MAP_REPO_VERSION_TO_SPECS_PY` and `MAP_REPO_TO_PARSER_PY`)
 * runs at evaluation time for each repository and version: the test command, the install
 * command its eval.sh re-runs, the extra `eval_commands`, and the log parser. Only these facts
 * are kept, grouped by version; test/grading/harness-pieces.unit.test.ts checks every repo/version
 * against the harness's own spec table.
 */

/** The evaluation-time part of one repo/version spec. */
export interface EvalSpec {
  /** Command the test directives are appended to. */
  test_cmd: string;
  /** Install command eval.sh re-runs before the tests (absent: none). */
  install?: string;
  /** Commands eval.sh runs right after `cd /testbed` (locale exports for old django). */
  eval_commands?: string[];
}

interface RepoSpecs {
  log_parser: string;
  groups: Array<{ versions: string[] } & EvalSpec>;
}

const PYTEST = "pytest -rA";
const PIP_E = "python -m pip install -e .";
const DJANGO_CMD = "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1";
const DJANGO_LOCALE_OLD = [
  "export LANG=en_US.UTF-8",
  "export LC_ALL=en_US.UTF-8",
  "export PYTHONIOENCODING=utf8",
  "export LANGUAGE=en_US:en",
];
const DJANGO_LOCALE_3 = [
  "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
  "export LANG=en_US.UTF-8",
  "export LANGUAGE=en_US:en",
  "export LC_ALL=en_US.UTF-8",
];

function v(list: string): string[] {
  return list.split(" ");
}

/** Plain pytest repositories: one group, `pytest -rA`, the given install. */
function pytestRepo(log_parser: string, versions: string, install = PIP_E): RepoSpecs {
  return { log_parser, groups: [{ versions: v(versions), test_cmd: PYTEST, install }] };
}

export const SPEC_TABLE: Readonly<Record<string, RepoSpecs>> = {
  "astropy/astropy": {
    log_parser: "pytest_v2",
    groups: [
      {
        versions: v("3.0 3.1 3.2 4.1 4.2 4.3 5.0 5.1 5.2 v5.3"),
        test_cmd: PYTEST,
        install: "python -m pip install -e .[test] --verbose",
      },
      {
        versions: v("0.1 0.2 0.3 0.4 1.1 1.2 1.3"),
        test_cmd: "pytest -rA -vv -o console_output_style=classic --tb=no",
        install: "python -m pip install -e .[test] --verbose",
      },
    ],
  },
  "django/django": {
    log_parser: "django",
    groups: [
      {
        versions: v("1.7 1.8 1.10 1.11 2.0 2.1 2.2"),
        test_cmd: DJANGO_CMD,
        install: "python setup.py install",
        eval_commands: DJANGO_LOCALE_OLD,
      },
      {
        versions: ["1.9"],
        test_cmd: "./tests/runtests.py --verbosity 2",
        install: "python setup.py install",
        eval_commands: DJANGO_LOCALE_OLD,
      },
      { versions: v("1.4 1.5 1.6"), test_cmd: DJANGO_CMD, install: "python setup.py install" },
      { versions: v("3.0 3.1 3.2"), test_cmd: DJANGO_CMD, install: PIP_E, eval_commands: DJANGO_LOCALE_3 },
      { versions: v("4.0 4.1 4.2 5.0 5.1 5.2"), test_cmd: DJANGO_CMD, install: PIP_E },
    ],
  },
  "matplotlib/matplotlib": {
    log_parser: "matplotlib",
    groups: [
      { versions: v("3.0 3.1 3.2 3.3 3.4 3.5 3.6 3.7"), test_cmd: PYTEST, install: PIP_E },
      {
        versions: v("3.8 3.9"),
        test_cmd: PYTEST,
        install: 'python -m pip install --no-build-isolation -e ".[dev]"',
      },
      {
        versions: v("1.0 1.1 1.2 1.3 1.4 1.5 2.0 2.1 2.2"),
        test_cmd: PYTEST,
        install: "python setup.py build; python setup.py install",
      },
    ],
  },
  "mwaskom/seaborn": {
    log_parser: "seaborn",
    groups: [
      { versions: ["0.11"], test_cmd: "pytest --no-header -rA", install: PIP_E },
      {
        versions: v("0.12 0.13 0.14"),
        test_cmd: "pytest --no-header -rA",
        install: "python -m pip install -e .[dev]",
      },
    ],
  },
  "pallets/flask": pytestRepo("pytest", "2.0 2.1 2.2 2.3 3.0 3.1"),
  "psf/requests": pytestRepo(
    "pytest_options",
    "0.7 0.8 0.9 0.11 0.13 0.14 1.1 1.2 2.0 2.2 2.3 2.4 2.5 2.7 2.8 2.9 2.10 2.11 2.12 2.17 2.18 2.19 2.22 2.25 2.26 2.27 2.31 3.0",
    "python -m pip install .",
  ),
  "pydata/xarray": pytestRepo("pytest", "0.12 0.18 0.19 0.20 2022.03 2022.06 2022.09 2023.07 2024.05"),
  "pylint-dev/pylint": pytestRepo(
    "pytest_options",
    "2.8 2.9 2.10 2.11 2.13 2.14 2.15 2.16 2.17 3.0 3.1 3.2 3.3 4.0",
  ),
  "pytest-dev/pytest": pytestRepo(
    "pytest",
    "4.4 4.5 4.6 5.0 5.1 5.2 5.3 5.4 6.0 6.2 6.3 7.0 7.1 7.2 7.4 8.0 8.1 8.2 8.3 8.4",
  ),
  "scikit-learn/scikit-learn": pytestRepo(
    "pytest_v2",
    "0.20 0.21 0.22 1.3 1.4 1.5 1.6",
    "python -m pip install -v --no-use-pep517 --no-build-isolation -e .",
  ),
  "sphinx-doc/sphinx": {
    log_parser: "pytest_v2",
    groups: [
      {
        versions: v(
          "1.5 1.6 1.7 1.8 2.0 2.1 2.2 2.3 2.4 3.0 3.1 3.2 3.3 3.4 3.5 4.0 4.1 4.2 4.3 4.4 4.5 5.0 5.1 5.2 5.3 6.0 6.2 7.0 7.1 7.2 7.3 7.4 8.0 8.1",
        ),
        test_cmd: "tox --current-env -epy39 -v --",
        install: "python -m pip install -e .[test]",
      },
    ],
  },
  "sympy/sympy": {
    log_parser: "sympy",
    groups: [
      {
        versions: v("0.7 1.0 1.1 1.2 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.11 1.12 1.13 1.14"),
        test_cmd: "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
        install: PIP_E,
      },
    ],
  },
  "marshmallow-code/marshmallow": pytestRepo(
    "pytest",
    "2.18 2.19 2.20 3.0 3.1 3.2 3.4 3.8 3.9 3.10 3.11 3.12 3.13 3.15 3.16 3.19",
    "python -m pip install -e '.[dev]'",
  ),
  "pvlib/pvlib-python": pytestRepo(
    "pytest",
    "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9",
    "python -m pip install -e .[all]",
  ),
  "pydicom/pydicom": pytestRepo("pytest_options", "1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2 2.3 2.4 3.0"),
  "pylint-dev/astroid": pytestRepo("pytest", "2.5 2.6 2.7 2.8 2.9 2.10 2.12 2.13 2.14 2.15 2.16 3.0"),
  "pyvista/pyvista": pytestRepo(
    "pytest",
    "0.20 0.21 0.22 0.23 0.24 0.25 0.26 0.27 0.28 0.29 0.30 0.31 0.32 0.33 0.34 0.35 0.36 0.37 0.38 0.39 0.40 0.41 0.42 0.43",
  ),
  "sqlfluff/sqlfluff": pytestRepo(
    "pytest",
    "0.4 0.5 0.6 0.8 0.9 0.10 0.11 0.12 0.13 1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2",
  ),
};

/** The harness's spec for `repo` at `version`, or undefined where the table has none. */
export function lookupSpec(repo: string, version: string): (EvalSpec & { log_parser: string }) | undefined {
  const entry = SPEC_TABLE[repo];
  if (!entry) return undefined;
  const group = entry.groups.find((g) => g.versions.includes(version));
  if (!group) return undefined;
  const { versions: _versions, ...spec } = group;
  return { ...spec, log_parser: entry.log_parser };
}

/** The harness's parser name for `repo` (any version), or undefined. */
export function parserForRepo(repo: string): string | undefined {
  return SPEC_TABLE[repo]?.log_parser;
}
