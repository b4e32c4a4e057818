/** One candidate patch of an instance, and where it came from. */
export interface Candidate {
  /** `attempt-2` (a run folder), or the predictions file it was read from. */
  source: string;
  /** The patch as written; null or "" when the attempt left none. */
  patch: string | null;
  /** The attempt's exit status (run folders); absent for prediction files. */
  exitStatus?: string | null;
  /** The model that wrote it, where known. */
  modelName?: string;
}

/** The candidates of one instance, and what could not be read (nothing of it is lost or changed). */
export interface InstanceCandidates {
  instanceId: string;
  candidates: Candidate[];
  /** An attempt whose trajectory is missing or unreadable, in words. */
  problems: string[];
}
