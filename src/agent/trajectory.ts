import type { ChatMessage } from "../models/types.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { Trajectory, TrajectoryInfo } from "./trajectory-types.js";

/**
 * Holds a task's trajectory and saves it (atomically) after every step, so a killed run
 * leaves a complete, valid JSON file behind.
 */
export class TrajectoryRecorder {
  readonly trajectory: Trajectory;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string | undefined,
    info: Omit<TrajectoryInfo, "exit_status" | "exit_message" | "submission" | "model_stats">,
  ) {
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

  /** Writes the current state; saves are serialised so an older state never overwrites a newer one. */
  save(): Promise<void> {
    const path = this.path;
    if (!path) return Promise.resolve();
    const info = this.trajectory.info;
    info.timing.wall_seconds = (Date.now() - Date.parse(info.timing.started_at)) / 1000;
    const text = `${JSON.stringify(this.trajectory, null, 2)}\n`;
    this.saving = this.saving.then(() => writeFileAtomic(path, text));
    return this.saving;
  }
}
