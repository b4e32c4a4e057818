import type { HarnessVersion } from "./parsers/index.js";
import type { InstanceTestSpec } from "./test-spec.js";

/** The harness's heredoc delimiter for the test patch. */
export const TEST_PATCH_DELIMITER = "EOF_114329324912";

/** The conda activation an SWE-bench image needs (env `testbed` under /opt/miniconda3). */
export const CONDA_ACTIVATE = ["source /opt/miniconda3/bin/activate", "conda activate testbed"];

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
  const { spec, baseCommit, repoDir } = o;
  const resets: string[] = [];
  if (o.harness === "5") {
    if (spec.modifiedFiles.length > 0)
      resets.push(`git checkout ${baseCommit} ${spec.modifiedFiles.join(" ")}`);
    if (spec.newFiles.length > 0) resets.push(`rm -f ${spec.newFiles.join(" ")}`);
  } else {
    resets.push(`git checkout ${baseCommit} ${spec.modifiedFiles.join(" ")}`);
  }
  const lines = [...o.activate, `cd ${repoDir}`, ...spec.evalCommands];
  if (o.safeDirectory) lines.push(`git config --global --add safe.directory ${repoDir}`);
  lines.push(
    `cd ${repoDir}`,
    "git status",
    "git show",
    `git -c core.fileMode=false diff ${baseCommit}`,
    ...o.activate,
  );
  if (o.install && spec.install) lines.push(spec.install);
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
