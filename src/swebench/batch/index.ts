export { type PredEntry, PredsFile } from "../../task/preds-file.js";
export { BatchBudget } from "./budget.js";
export { BatchInputError } from "./errors.js";
export { openInstanceEnvironment } from "./instance-environment.js";
export { createLocalDispatcher, type LocalDispatchOptions } from "./local-dispatch.js";
export {
  createProgressDisplay,
  type ProgressDisplay,
  type ProgressDisplayOptions,
} from "./progress-display.js";
export { formatCount, formatDuration, liveLines, plainLine } from "./progress-render.js";
export { type ProgressSnapshot, ProgressState, type RunningInstance } from "./progress-state.js";
export { needsRun, type PriorState, RERUN_STATUSES, readPriorState, trajectoryPathFor } from "./resume.js";
export { runBatch } from "./run-batch.js";
export { checkInstanceIds, MAX_OUTAGE_RUNS, OUTAGE_LIMIT, type Recorded, RunFolder } from "./run-folder.js";
export { type InstanceContext, runInstance } from "./run-instance.js";
export { exitStatusesYaml, type InstanceRecord, type RunJson, RunRecord } from "./run-record.js";
export { summaryTable } from "./summary-table.js";
export type * from "./types.js";
export { cloneDirFor, createWorkspace, type Workspace } from "./workspace.js";
export { makeWorkspaceRoot, sweepStaleRoots } from "./workspace-root.js";
