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
  /** Optional: a per-row image name (SWE-bench-Live, SWE-rebench). */
  docker_image?: string;
  /** Where the repository is inside the row's image when not /testbed (SWE-bench Pro: /app). */
  workdir?: string;
  /** SWE-bench Pro's own fields, read from its columns (dataset/kinds.ts). */
  pro?: ProFields;
  /** SWE-bench-Live's own fields, read from its columns (dataset/kinds.ts). */
  live?: LiveFields;
  [key: string]: unknown;
}

/** What a SWE-bench Pro row says beyond the SWE-bench fields. */
export interface ProFields {
  /** Commands run after the patch is applied; Pro's evaluator runs only the last line. */
  before_repo_set_cmd: string;
  /** `selected_test_files_to_run`, decoded: the run script's arguments (joined by commas). */
  selected_test_files: string[];
  /** The image's tag in Pro's Docker Hub repository. */
  dockerhub_tag: string;
  /** `repo_language` (js, ts, go, python). */
  language?: string;
}

/** What a SWE-bench-Live row says beyond the SWE-bench fields. */
export interface LiveFields {
  /** Run after the patches, before the tests (joined with " ; " as Live joins them). */
  rebuild_cmds: string[];
  test_cmds: string[];
  /** Print the test log; none (the Python dataset): the test commands' own output is the log. */
  print_cmds: string[];
  /** `log_parser`: `pytest`, or the Python source of a function `parser(log)`. */
  parser: string;
  platform: "linux" | "windows";
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
