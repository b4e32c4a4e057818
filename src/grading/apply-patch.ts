import type { Environment } from "../environments/types.js";
import type { HarnessVersion } from "./parsers/index.js";

/** v4.1's fallback chain; the first command that exits 0 wins. */
export const APPLY_COMMANDS_V4 = [
  "git apply --verbose",
  "git apply --verbose --reject",
  "patch --batch --fuzz=5 -p1 -i",
];
/** v5's chain (the tree is reset with `git checkout -- . ; git clean -fd` between tries). */
export const APPLY_COMMANDS_V5 = [
  "git apply --verbose",
  "git apply --verbose --3way",
  "git apply --verbose --reject",
  "patch --batch --forward --fuzz=5 -p1 -i",
];

/** How applying a model patch went. */
export interface ApplyOutcome {
  applied: boolean;
  /** The command that applied it. */
  command?: string;
  /** Every try's command line and output, for run_instance.log. */
  log: string;
  /** One line per failed try: the command and its most telling output line. */
  reasons: string[];
}

function telling(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return (
    lines.find((l) => /^(error|fatal|patch: \*\*\*\*)|malformed|does not apply|FAILED/i.test(l)) ??
    lines.at(-1) ??
    "no output"
  );
}

function quote(path: string): string {
  return `'${path.replaceAll("'", "'\\''")}'`;
}

/**
 * Applies the patch file at `patchPath` (inside the environment) in `repoDir` with the harness's
 * fallback chain. v5: between tries the tree is reset, and when all fail a successful
 * `git apply --check --reverse` (the patch is already in) counts as applied.
 */
export async function applyModelPatch(
  env: Environment,
  repoDir: string,
  patchPath: string,
  harness: HarnessVersion,
  timeout = 600,
): Promise<ApplyOutcome> {
  const commands = harness === "5" ? APPLY_COMMANDS_V5 : APPLY_COMMANDS_V4;
  const parts: string[] = [];
  const reasons: string[] = [];
  for (let i = 0; i < commands.length; i++) {
    if (harness === "5" && i > 0)
      await env.exec("git checkout -- . ; git clean -fd", { cwd: repoDir, timeout });
    const command = `${commands[i]} ${quote(patchPath)}`;
    const r = await env.exec(command, { cwd: repoDir, timeout });
    parts.push(`$ ${command}\n${r.output}(exit ${r.returncode}${r.timedOut ? ", timed out" : ""})`);
    if (r.returncode === 0) return { applied: true, command: commands[i], log: parts.join("\n"), reasons };
    reasons.push(`${commands[i]}: ${telling(r.output)}`);
  }
  if (harness === "5") {
    await env.exec("git checkout -- . ; git clean -fd", { cwd: repoDir, timeout });
    const r = await env.exec(`git apply --check --reverse ${quote(patchPath)}`, { cwd: repoDir, timeout });
    parts.push(`$ git apply --check --reverse\n${r.output}(exit ${r.returncode})`);
    if (r.returncode === 0) {
      return {
        applied: true,
        command: "already applied (git apply --check --reverse)",
        log: parts.join("\n"),
        reasons,
      };
    }
  }
  return { applied: false, log: parts.join("\n"), reasons };
}

/** Whether a text can be a diff at all (a header or a hunk); anything else fails without trying. */
export function looksLikeDiff(patch: string): boolean {
  return /^(diff --git |--- |\+\+\+ |@@ )/m.test(patch);
}
