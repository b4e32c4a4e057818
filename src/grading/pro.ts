import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseTestList } from "../dataset/errors.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { InstanceSpecError } from "./test-spec.js";

/**
 * SWE-bench Pro's evaluation, as its evaluator (`swe_bench_pro_eval.py` of scaleapi/SWE-bench_Pro-os)
 * runs it: each instance has its own `run_scripts/<id>/run_script.sh` and `parser.py` in that
 * repository (not in the dataset), and the ENV lines of its two Dockerfiles
 * (`dockerfiles/base_dockerfile/<id>/Dockerfile`, `dockerfiles/instance_dockerfile/<id>/Dockerfile`).
 * In the instance's container, under /workspace: the patch applied at /app on the base commit, the
 * last line of `before_repo_set_cmd` (it checks the test files out of the fix commit), the run
 * script with the selected test files joined by commas (stdout and stderr to files), then the
 * parser writing output.json. Resolved when every FAIL_TO_PASS and PASS_TO_PASS test is PASSED there.
 */

/** Where the evaluator puts its files in the container. */
export const PRO_WORKSPACE = "/workspace";

/** The per-instance files of Pro's evaluator, read from a checkout of SWE-bench_Pro-os. */
export interface ProScripts {
  runScript: string;
  parser: string;
  baseDockerfile: string;
  instanceDockerfile: string;
}

/**
 * Reads an instance's run script, parser and Dockerfiles from `dir` (a checkout of
 * SWE-bench_Pro-os). A missing file is an `InstanceSpecError` naming it and what to pass.
 */
export async function loadProScripts(dir: string, instanceId: string): Promise<ProScripts> {
  const read = async (path: string) => {
    try {
      return await readFile(join(dir, path), "utf8");
    } catch (err) {
      throw new InstanceSpecError(
        `instance ${instanceId}: SWE-bench Pro's ${path} cannot be read under ${dir} (${(err as Error).message}). ` +
          "--pro-scripts must name a checkout of scaleapi/SWE-bench_Pro-os (its run_scripts/ and dockerfiles/ folders).",
      );
    }
  };
  return {
    runScript: await read(join("run_scripts", instanceId, "run_script.sh")),
    parser: await read(join("run_scripts", instanceId, "parser.py")),
    baseDockerfile: await read(join("dockerfiles", "base_dockerfile", instanceId, "Dockerfile")),
    instanceDockerfile: await read(join("dockerfiles", "instance_dockerfile", instanceId, "Dockerfile")),
  };
}

/** The Dockerfiles' `ENV` lines as `export` lines, in order (the evaluator's `create_entryscript`). */
export function envExports(...dockerfiles: string[]): string[] {
  const out: string[] = [];
  for (const file of dockerfiles) {
    for (const raw of file.split("\n")) {
      const line = raw.trim();
      if (line.startsWith("ENV")) out.push(line.replace("ENV", "export"));
    }
  }
  return out;
}

/** The entry script the evaluator runs in the container (`bash /workspace/entryscript.sh`). */
export function proEntryScript(row: SwebenchInstance, scripts: ProScripts): string {
  const pro = row.pro;
  if (!pro) throw new InstanceSpecError(`instance ${row.instance_id} is not a SWE-bench Pro row`);
  const lastSetCmd = pro.before_repo_set_cmd.trim().split("\n").pop() ?? "";
  const w = PRO_WORKSPACE;
  return `
${envExports(scripts.baseDockerfile, scripts.instanceDockerfile).join("\n")}
# apply patch
cd /app
git reset --hard ${row.base_commit}
git checkout ${row.base_commit}
git apply -v ${w}/patch.diff
${lastSetCmd}
# run test and save stdout and stderr to separate files
bash ${w}/run_script.sh ${pro.selected_test_files.join(",")} > ${w}/stdout.log 2> ${w}/stderr.log
# run parsing script
python ${w}/parser.py ${w}/stdout.log ${w}/stderr.log ${w}/output.json
`;
}

/** How a Pro run ended: graded, or with no results to grade (an infrastructure failure). */
export type ProVerdict =
  | { graded: true; resolved: boolean; passed: string[]; missing: string[] }
  | { graded: false; reason: string };

/**
 * Grades output.json as the evaluator does: resolved when FAIL_TO_PASS ∪ PASS_TO_PASS ⊆ the names
 * with status PASSED. No output.json, or one that is not `{"tests": [{"name", "status"}...]}`, is
 * no result (the evaluator counts it as a failure; here it is an infrastructure failure, never
 * "unresolved"). `missing` lists the required tests that did not pass.
 */
export function gradeProOutput(row: SwebenchInstance, outputJson: string | undefined): ProVerdict {
  if (outputJson === undefined) {
    return { graded: false, reason: "the parser wrote no output.json (see stdout.log and stderr.log)" };
  }
  let data: unknown;
  try {
    data = JSON.parse(outputJson);
  } catch (err) {
    return { graded: false, reason: `output.json is not JSON (${(err as Error).message})` };
  }
  const tests = (data as { tests?: unknown } | null)?.tests;
  if (!Array.isArray(tests)) return { graded: false, reason: 'output.json has no "tests" list' };
  const passed = new Set<string>();
  for (const t of tests) {
    const test = t as { name?: unknown; status?: unknown } | null;
    if (typeof test?.name !== "string" || typeof test.status !== "string") {
      return {
        graded: false,
        reason: `output.json has a test entry without name and status: ${JSON.stringify(t)?.slice(0, 120)}`,
      };
    }
    if (test.status === "PASSED") passed.add(test.name);
  }
  const required = [
    ...new Set([...parseTestList(row, "FAIL_TO_PASS"), ...parseTestList(row, "PASS_TO_PASS")]),
  ];
  const missing = required.filter((name) => !passed.has(name));
  return { graded: true, resolved: missing.length === 0, passed: [...passed], missing };
}
