import type { SwebenchInstance } from "../dataset/types.js";
import type { GradeInstance } from "../instance/types.js";

/**
 * A fresh environment for grading one instance, and how eval.sh is to run in it (see
 * `openInstance`'s `grade` use). The evaluation calls `close` exactly once, whatever happened.
 */
export type EvalEnvironment = GradeInstance;

/** Makes the environment of one instance; rejects with a readable Error when it cannot. */
export type EnvironmentProvider = (instance: SwebenchInstance) => Promise<EvalEnvironment>;
