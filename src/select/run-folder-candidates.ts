import { existsSync } from "node:fs";
import { readTrajectoryJson } from "../agent/trajectory-journal.js";
import { trajectorySummary } from "../agent/trajectory-schema.js";
import type { PredEntry } from "../run-folder/preds-file.js";
import { attemptNumbers, trajectoryPathFor } from "../run-folder/resume.js";
import type { InstanceCandidates } from "./candidates.js";

/** The patch and status of a trajectory, or why it cannot be used. */
async function readAttempt(
  path: string,
): Promise<
  { ok: true; patch: string; exitStatus: string | null; modelName?: string } | { ok: false; problem: string }
> {
  if (!existsSync(path)) return { ok: false, problem: `${path} is missing` };
  let doc: unknown;
  try {
    doc = (await readTrajectoryJson(path)).doc;
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
  const read = trajectorySummary(doc, path);
  if (!read.ok) return read;
  const info = read.summary;
  if (info.submission === undefined) {
    return {
      ok: false,
      problem: `${path} has no info.submission text (a damaged trajectory); run the instance again`,
    };
  }
  return {
    ok: true,
    patch: info.submission,
    exitStatus: info.exit_status ?? null,
    ...(info.model_name !== undefined ? { modelName: info.model_name } : {}),
  };
}

/**
 * The candidates a run folder holds for `id`: one per `DIR/<id>/attempt-<k>/<id>.traj.json`
 * (its `info.submission`), in the order of k; without attempt folders, the one patch of preds.json,
 * else of `DIR/<id>/<id>.traj.json`. A missing or unreadable trajectory is a problem in words;
 * nothing in the folder is changed. Undefined when the folder holds nothing for `id`.
 */
export async function runFolderCandidates(
  dir: string,
  id: string,
  preds: (id: string) => PredEntry | undefined,
): Promise<InstanceCandidates | undefined> {
  const ks = attemptNumbers(dir, id);
  const problems: string[] = [];
  if (ks.length > 0) {
    const out: InstanceCandidates = { instanceId: id, candidates: [], problems };
    for (const k of ks) {
      const r = await readAttempt(trajectoryPathFor(dir, id, k));
      if (r.ok) {
        out.candidates.push({
          source: `attempt-${k}`,
          patch: r.patch,
          exitStatus: r.exitStatus,
          ...(r.modelName ? { modelName: r.modelName } : {}),
        });
      } else problems.push(`attempt-${k}: ${r.problem}; left out`);
    }
    return out;
  }
  const p = preds(id);
  if (p) {
    return {
      instanceId: id,
      candidates: [{ source: "preds.json", patch: p.model_patch, modelName: p.model_name_or_path }],
      problems,
    };
  }
  const traj = trajectoryPathFor(dir, id);
  if (!existsSync(traj)) return undefined;
  const r = await readAttempt(traj);
  if (!r.ok) return { instanceId: id, candidates: [], problems: [r.problem] };
  return {
    instanceId: id,
    candidates: [
      {
        source: `${id}.traj.json`,
        patch: r.patch,
        exitStatus: r.exitStatus,
        ...(r.modelName ? { modelName: r.modelName } : {}),
      },
    ],
    problems,
  };
}
