import {
  createScrubber,
  maskPatchSecrets,
  type SecretSource,
  scrubStringValues,
  secretsOf,
} from "../config/secret-values.js";
import type { ChatMessage } from "../models/types.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { Trajectory, TrajectoryInfo } from "./trajectory-types.js";

/**
 * Holds a task's trajectory and saves it (atomically) after every step, so a killed run
 * leaves a complete, valid JSON file behind. The file has the secrets of `scrub` (a config's
 * secret values, the host's secret variables) and URL credentials masked as `***` in its string
 * values (never in numbers or keys: the file always parses); the trajectory in memory keeps them.
 */
export class TrajectoryRecorder {
  readonly trajectory: Trajectory;
  private saving: Promise<void> = Promise.resolve();
  /** Masks the known secrets (and URL credentials) in a text. */
  readonly scrub: (text: string) => string;

  constructor(
    private readonly path: string | undefined,
    info: Omit<TrajectoryInfo, "exit_status" | "exit_message" | "submission" | "model_stats">,
    scrub?: SecretSource,
  ) {
    this.scrub = createScrubber(secretsOf(scrub));
    this.trajectory = {
      trajectory_format: "patchloop-1",
      info: {
        exit_status: null,
        exit_message: null,
        submission: "",
        model_stats: { api_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 },
        ...info,
      },
      messages: [],
    };
  }

  get messages(): ChatMessage[] {
    return this.trajectory.messages;
  }

  get info(): TrajectoryInfo {
    return this.trajectory.info;
  }

  add(message: ChatMessage): void {
    this.trajectory.messages.push(message);
  }

  /**
   * Sets the patch, with every line holding a known secret masked (maskPatchSecrets); the number
   * of masked lines is kept in `info.submission_masked_lines` (absent when none) for a warning.
   */
  setSubmission(patch: string): void {
    const { patch: clean, masked } = maskPatchSecrets(patch, this.scrub);
    this.trajectory.info.submission = clean;
    if (masked > 0) this.trajectory.info.submission_masked_lines = masked;
  }

  /**
   * The file's text: every string value scrubbed, except `info.submission`, which is written as
   * set (masked line by line already; a resumed run rebuilds preds.json from it).
   */
  private serialize(): string {
    const scrubbed = scrubStringValues(this.trajectory, this.scrub);
    scrubbed.info.submission = this.trajectory.info.submission;
    return `${JSON.stringify(scrubbed, null, 2)}\n`;
  }

  /** Writes the current state; saves are serialised so an older state never overwrites a newer one. */
  save(): Promise<void> {
    const path = this.path;
    if (!path) return Promise.resolve();
    const info = this.trajectory.info;
    info.timing.wall_seconds = (Date.now() - Date.parse(info.timing.started_at)) / 1000;
    const text = this.serialize();
    this.saving = this.saving.then(() => writeFileAtomic(path, text));
    return this.saving;
  }
}
