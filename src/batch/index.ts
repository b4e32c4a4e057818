export { cloneDirFor, createWorkspace, type Workspace } from "../instance/workspace.js";
export { makeWorkspaceRoot, sweepStaleRoots } from "../instance/workspace-root.js";
export { BatchInputError } from "../run-folder/errors.js";
export { checkInstanceIds } from "../run-folder/instance-ids.js";
export { type PredEntry, PredsFile } from "../run-folder/preds-file.js";
export {
  needsRun,
  type PriorState,
  RERUN_STATUSES,
  readPriorState,
  trajectoryPathFor,
} from "../run-folder/resume.js";
export { BatchBudget } from "./budget.js";
export { openInstanceEnvironment } from "./instance-environment.js";
export { createLocalDispatcher, type LocalDispatchOptions } from "./local-dispatch.js";
export {
  createProgressDisplay,
  type ProgressDisplay,
  type ProgressDisplayOptions,
} from "./progress-display.js";
export { formatCount, formatDuration, liveLines, plainLine } from "./progress-render.js";
export { type ProgressSnapshot, ProgressState, type RunningInstance } from "./progress-state.js";
export { runBatch } from "./run-batch.js";
export { MAX_OUTAGE_RUNS, OUTAGE_LIMIT, type Recorded, RunFolder } from "./run-folder.js";
export { type InstanceContext, runInstance } from "./run-instance.js";
export { exitStatusesYaml, type InstanceRecord, type RunJson, RunRecord } from "./run-record.js";
export { summaryTable } from "./summary-table.js";
export type * from "./types.js";
