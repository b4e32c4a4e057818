import type { Environment } from "../../environments/types.js";

export interface ToolContext {
  env: Environment;
  /** Per-command timeout in seconds. */
  timeout: number;
  /** Whether the model can see images (image view returns image parts instead of a note). */
  vision: boolean;
  signal?: AbortSignal;
}

export interface ToolImage {
  /** e.g. `image/png`. */
  mediaType: string;
  /** Base64 data. */
  data: string;
}

export interface ToolResult {
  /** Text shown to the model (already clipped by the tool where it clips). */
  output: string;
  /** 0 for success; bash's exit status; 1 for a tool error. */
  returncode: number;
  /** True when the command ran past the per-command timeout and was stopped. */
  timedOut?: boolean;
  /**
   * True when the command was stopped because the run is stopping (`ToolContext.signal` fired),
   * not by its timeout; `timedOut` is then false.
   */
  interrupted?: boolean;
  images?: ToolImage[];
  /** bash: the whole output before clipping (the submission is read from it, never from the clipped text). */
  fullOutput?: string;
}

/** One tool per file, as a factory's product. `execute` never throws for bad arguments. */
export interface Tool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /**
   * Runs the tool. Bad arguments and problems the model can fix (a missing file, a text not found)
   * resolve to a result with `returncode: 1`; the promise rejects only when the environment itself
   * fails (for instance an `exec` that rejects), so the agent can end the task with EnvironmentError.
   */
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
  /**
   * Ends what the tool keeps running (the persistent bash shell). Optional; safe to call twice and
   * when nothing runs. A later `execute` starts afresh.
   */
  close?(): Promise<void>;
}
