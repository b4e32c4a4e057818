/**
 * One SWE-bench row in the Hugging Face schema. `FAIL_TO_PASS` / `PASS_TO_PASS` stay JSON-encoded
 * strings as in the dataset; use `parseTestList` (dataset.ts) to read them.
 */
export interface SwebenchInstance {
  repo: string;
  instance_id: string;
  base_commit: string;
  patch: string;
  test_patch: string;
  problem_statement: string;
  hints_text: string;
  created_at: string;
  version: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
  environment_setup_commit: string;
  /** Optional, for datasets beyond the official repositories: the test command to run. */
  test_cmd?: string;
  /** Optional: the name of the log parser to grade with. */
  log_parser?: string;
  /** Optional: a per-row image name. */
  image_name?: string;
  [key: string]: unknown;
}

/** Which rows of a dataset to use (the batch runner's and eval's selection flags). */
export interface Selection {
  /** `A:B` Python-style slice over the (optionally shuffled) rows. */
  slice?: string;
  /** Regex matched against instance ids. */
  filter?: string;
  shuffle?: boolean;
  seed?: number;
  instanceIds?: string[];
}
