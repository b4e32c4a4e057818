export { BatchBudget } from "./budget.js";
export { BatchInputError } from "./errors.js";
export {
  imageFor,
  type OpenInstanceOptions,
  openInstanceEnvironment,
  TESTBED,
} from "./instance-environment.js";
export { type BatchPlan, checkInstanceIds, planBatch } from "./plan.js";
export { type PredEntry, PredsFile } from "./preds-file.js";
export {
  createProgressDisplay,
  type ProgressDisplay,
  type ProgressDisplayOptions,
} from "./progress-display.js";
export { formatCount, formatDuration, liveLines, plainLine } from "./progress-render.js";
export { type ProgressSnapshot, ProgressState, type RunningInstance } from "./progress-state.js";
export { needsRun, type PriorState, RERUN_STATUSES, readPriorState, trajectoryPathFor } from "./resume.js";
export { runBatch } from "./run-batch.js";
export { type InstanceContext, runInstance } from "./run-instance.js";
export { exitStatusesYaml, type InstanceRecord, type RunJson, RunRecord } from "./run-record.js";
export { summaryTable } from "./summary-table.js";
export type * from "./types.js";
export { cloneDirFor, createWorkspace, type Workspace } from "./workspace.js";
export { makeWorkspaceRoot, sweepStaleRoots } from "./workspace-root.js";
