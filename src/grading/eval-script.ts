import { CONDA_ACTIVATE } from "../instance/types.js";
import type { HarnessVersion } from "./parsers/index.js";
import type { InstanceTestSpec } from "./test-spec.js";

/** The harness's heredoc delimiter for the test patch. */
export const TEST_PATCH_DELIMITER = "EOF_114329324912";

/** Inputs of `makeEvalScript`. */
export interface EvalScriptOptions {
  spec: InstanceTestSpec;
  baseCommit: string;
  testPatch: string;
  /** Repository root inside the environment (`/testbed` in SWE-bench images). */
  repoDir: string;
  /** Lines that activate the test environment; `CONDA_ACTIVATE` in images, none on the host. */
  activate: string[];
  /**
   * Whether to add `git config --global --add safe.directory <repoDir>` as the harness does.
   * True in containers; false on the host, where it would append to the user's ~/.gitconfig.
   */
  safeDirectory: boolean;
  /** Whether to re-run the spec's install command (the harness does; off for local runs by default). */
  install: boolean;
  harness: HarnessVersion;
  /** Lines right after `set -uxo pipefail` that declare the environment (the host's Python). */
  environment?: string[];
  /** Commands run in the repository before the test files are reset (the host's setup). */
  setup?: string[];
}

/**
 * eval.sh as the harness writes it (`make_eval_script_list_py`): `set -uxo pipefail` (so the
 * `: '>>>>> Start Test Output'` markers reach the log through xtrace), activation, `cd`, the
 * spec's eval_commands, informational git status/show/diff, the install, the reset of the test
 * files to the base commit, the test patch through a heredoc, the test command between the
 * markers, and the reset again. v5 also resets files the test patch creates (`rm -f`) and
 * records the test command's exit status after the end marker.
 */
export function makeEvalScript(o: EvalScriptOptions): string {
  if (o.spec.layout === "common") return makeCommonEvalScript(o);
  const { spec, baseCommit, repoDir } = o;
  const resets: string[] = [];
  if (o.harness === "5") {
    if (spec.modifiedFiles.length > 0)
      resets.push(`git checkout ${baseCommit} ${spec.modifiedFiles.join(" ")}`);
    if (spec.newFiles.length > 0) resets.push(`rm -f ${spec.newFiles.join(" ")}`);
  } else {
    resets.push(`git checkout ${baseCommit} ${spec.modifiedFiles.join(" ")}`);
  }
  const lines = [...(o.environment ?? []), ...o.activate, `cd ${repoDir}`, ...spec.evalCommands];
  if (o.safeDirectory) lines.push(`git config --global --add safe.directory ${repoDir}`);
  lines.push(
    `cd ${repoDir}`,
    "git status",
    "git show",
    `git -c core.fileMode=false diff ${baseCommit}`,
    ...o.activate,
  );
  if (o.install && spec.install) lines.push(spec.install);
  lines.push(...(o.setup ?? []));
  lines.push(...resets);
  lines.push(`git apply -v - <<'${TEST_PATCH_DELIMITER}'\n${o.testPatch}\n${TEST_PATCH_DELIMITER}`);
  lines.push(": '>>>>> Start Test Output'", spec.testCommand);
  if (o.harness === "5") {
    lines.push(
      "SWEBENCH_TEST_EXIT_CODE=$?",
      ": '>>>>> End Test Output'",
      'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"',
    );
  } else {
    lines.push(": '>>>>> End Test Output'");
  }
  lines.push(...resets);
  return `${["#!/bin/bash", "set -uxo pipefail", ...lines].join("\n")}\n`;
}

/**
 * eval.sh of the other languages as the harness writes it (`make_eval_script_list_common`): `cd`,
 * `safe.directory`, the reset of the test files (or an echo when the test patch modifies none),
 * the test patch through `git apply --verbose --reject`, the spec's build commands, the test
 * commands between the markers (v5: the last one's exit status recorded), and the reset again.
 */
function makeCommonEvalScript(o: EvalScriptOptions): string {
  const { spec, baseCommit, repoDir } = o;
  const reset =
    spec.modifiedFiles.length > 0
      ? `git checkout ${baseCommit} ${spec.modifiedFiles.join(" ")}`
      : 'echo "No test files to reset"';
  const lines = [...(o.environment ?? []), `cd ${repoDir}`];
  if (o.safeDirectory) lines.push(`git config --global --add safe.directory ${repoDir}`);
  lines.push(`cd ${repoDir}`, ...(o.setup ?? []), reset);
  lines.push(
    `git apply --verbose --reject - <<'${TEST_PATCH_DELIMITER}'\n${o.testPatch}\n${TEST_PATCH_DELIMITER}`,
  );
  lines.push(...spec.build, ": '>>>>> Start Test Output'", spec.testCommand);
  if (o.harness === "5") {
    lines.push(
      "SWEBENCH_TEST_EXIT_CODE=$?",
      ": '>>>>> End Test Output'",
      'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"',
    );
  } else {
    lines.push(": '>>>>> End Test Output'");
  }
  lines.push(reset);
  return `${["#!/bin/bash", "set -uxo pipefail", ...lines].join("\n")}\n`;
}

/** Options of `adaptRowScript`. */
export interface RowScriptOptions {
  /** Repository root in the environment; a row's `/testbed` is rewritten to it when it differs. */
  repoDir: string;
  /** Declared environment lines (host runs): they replace the row's conda activation lines. */
  environment?: string[];
  setup?: string[];
  harness: HarnessVersion;
}

const CONTAINER_REPO = "/testbed";

/**
 * A v5 row's own eval script, made ready as the harness makes it (`make_test_spec`): the shebang
 * and `set -uxo pipefail` lines dropped and put back at the top, and, under v5, the test command's
 * exit status recorded right before the end marker (`SWEBENCH_TEST_EXIT_CODE=$?`) and printed
 * after it. On the host (`environment` given) the conda activation lines are replaced by the
 * declared environment, `/testbed` becomes the work tree, and the setup commands run after the
 * first `cd` into it.
 */
export function adaptRowScript(script: string, o: RowScriptOptions): string {
  let lines = script
    .trim()
    .split("\n")
    .filter((l) => l !== "#!/bin/bash" && l !== "set -uxo pipefail");
  if (o.environment) {
    lines = lines.filter((l) => !CONDA_ACTIVATE.includes(l.trim()));
    if (o.repoDir !== CONTAINER_REPO) {
      lines = lines.map((l) => l.replace(/\/testbed(?=[\s/'";:)]|$)/g, o.repoDir));
    }
    const firstCd = lines.findIndex((l) => l.trim() === `cd ${o.repoDir}`);
    lines.splice(firstCd < 0 ? 0 : firstCd + 1, 0, ...(o.setup ?? []));
    lines.unshift(...o.environment);
  }
  const recorded = lines.some((l) => l.includes("SWEBENCH_TEST_EXIT_CODE=$?"));
  if (o.harness === "5" && !recorded) {
    const end = lines.findIndex((l) => l.includes(">>>>> End Test Output"));
    if (end >= 0) {
      lines.splice(
        end,
        1,
        "SWEBENCH_TEST_EXIT_CODE=$?",
        lines[end],
        'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"',
      );
    }
  }
  return `${["#!/bin/bash", "set -uxo pipefail", ...lines].join("\n")}\n`;
}
