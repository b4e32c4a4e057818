import { NO_STATS } from "../agent/model-stats.js";
import type { Trajectory } from "../agent/trajectory-types.js";
import { versions } from "../agent/versions.js";
import type { InstanceResult } from "../batch/types.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { unstartedOutcome } from "../task/outcome.js";

/**
 * The result of an instance the queue gave up on (its deliveries spent, or no live worker can run
 * it): an EnvironmentError with a trajectory saying why; the same command runs it again later.
 */
export function givenUp(
  row: SwebenchInstance,
  o: { jobConfig: unknown; modelName: string; jobId: string; reason: string; now: number; attempt?: number },
): InstanceResult {
  const outcome = {
    ...unstartedOutcome(
      row.instance_id,
      "EnvironmentError",
      `the queue gave this instance up: ${o.reason}`,
      o.now,
    ),
    ...(o.attempt !== undefined ? { attempt_number: o.attempt } : {}),
  };
  const trajectory: Trajectory = {
    trajectory_format: "patchloop-1",
    info: {
      exit_status: outcome.exit_status,
      exit_message: outcome.exit_message,
      submission: "",
      model_stats: { ...NO_STATS },
      config: o.jobConfig,
      versions: versions(),
      timing: { started_at: outcome.started_at, ended_at: outcome.ended_at, wall_seconds: 0 },
      instance_id: row.instance_id,
      ...(o.attempt !== undefined ? { attempt_number: o.attempt } : {}),
      model_name: o.modelName,
    },
    messages: [],
  };
  return {
    outcome: { ...outcome, delivery: `${o.jobId}.given-up` },
    files: { [`${row.instance_id}.traj.json`]: `${JSON.stringify(trajectory, null, 2)}\n` },
  };
}
