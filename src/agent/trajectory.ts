import { type FileHandle, open, rm } from "node:fs/promises";
import {
  createScrubber,
  maskPatchSecrets,
  type SecretSource,
  scrubStringValues,
  secretsOf,
} from "../config/secret-values.js";
import type { ChatMessage } from "../models/types.js";
import { writeError, writeFileAtomic } from "../util/atomic-write.js";
import { NO_STATS } from "./model-stats.js";
import { journalPathOf } from "./trajectory-journal.js";
import type { Trajectory, TrajectoryInfo } from "./trajectory-types.js";

/**
 * Below this size the whole file is rewritten at every save; above, steps go to the journal. Small:
 * a rewrite per step of a file of a few hundred kB was a visible part of a step's CPU (issue 45).
 */
const SMALL_FILE_BYTES = 32 * 1024;
/** The file is rewritten at least this often while a journal is being appended to. */
const SNAPSHOT_EVERY_MS = 10_000;

/** Lines after the first of a pretty-printed value, indented for its place in the file. */
const indent = (json: string, by: string) => json.replace(/\n/g, `\n${by}`);

/**
 * Holds a task's trajectory and saves it after every step, so that a killed run (kill -9 at any
 * moment) leaves a valid record: `PATH` (the trajectory JSON, always written through a temp file
 * and a rename) plus, while the run is long, `PATH.journal` beside it (see trajectory-journal.ts).
 *
 * A save costs in proportion to what the step added: each message is scrubbed and serialised once,
 * when first saved. While the file is small it is rewritten at every save, so readers of `PATH` see
 * every step as before. Past SMALL_FILE_BYTES a save appends one line (the new messages and the
 * info) to the journal, and `PATH` is rewritten only when the journal has grown as large as the
 * file (so rewrites cost O(1) per byte added overall), every SNAPSHOT_EVERY_MS, and at the end; a
 * rewrite removes the journal. `readTrajectoryFile` (trajectory-journal.ts) reads `PATH` and the
 * journal together: one step behind at most after kill -9 (a half-written last line is dropped);
 * `PATH` alone is a valid, older trajectory.
 *
 * The file has the secrets of `scrub` (a config's secret values, the host's secret variables) and
 * URL credentials masked as `***` in its string values (never in numbers or keys: the file always
 * parses); the trajectory in memory keeps them. Messages must not change once saved.
 */
export class TrajectoryRecorder {
  readonly trajectory: Trajectory;
  private saving: Promise<void> = Promise.resolve();
  /** Masks the known secrets (and URL credentials) in a text. */
  readonly scrub: (text: string) => string;
  /** Each saved message as it is in the file (scrubbed, pretty-printed, indented). */
  private readonly written: string[] = [];
  /** Bytes (UTF-16 units, near enough) of the last file written, and of the journal since. */
  private fileChars = 0;
  private journalChars = 0;
  private lastFileAt = 0;
  private journal: FileHandle | null = null;
  private journalStale = true;

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
        model_stats: { ...NO_STATS },
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
   * The info as written: every string value scrubbed, except `info.submission`, which is written as
   * set (masked line by line already; a resumed run rebuilds preds.json from it).
   */
  private scrubbedInfo(): TrajectoryInfo {
    const info = scrubStringValues(this.trajectory.info, this.scrub);
    info.submission = this.trajectory.info.submission;
    return info;
  }

  /** Scrubs the messages added since the last save; returns them as written in the journal. */
  private takeNew(): unknown[] {
    const fresh: unknown[] = [];
    const all = this.trajectory.messages;
    for (let i = this.written.length; i < all.length; i++) {
      const clean = scrubStringValues(all[i], this.scrub);
      fresh.push(clean);
      this.written.push(`    ${indent(JSON.stringify(clean, null, 2), "    ")}`);
    }
    return fresh;
  }

  /** The whole file's text (what `JSON.stringify(trajectory, null, 2)` would give, scrubbed). */
  private fileText(info: TrajectoryInfo): string {
    const messages = this.written.length > 0 ? `[\n${this.written.join(",\n")}\n  ]` : "[]";
    return (
      `{\n  "trajectory_format": "patchloop-1",\n  "info": ${indent(JSON.stringify(info, null, 2), "  ")},\n` +
      `  "messages": ${messages}\n}\n`
    );
  }

  /** Writes the current state; saves are serialised so an older state never overwrites a newer one. */
  save(): Promise<void> {
    const path = this.path;
    if (!path) return Promise.resolve();
    const info = this.trajectory.info;
    info.timing.wall_seconds = (Date.now() - Date.parse(info.timing.started_at)) / 1000;
    const base = this.written.length;
    const fresh = this.takeNew();
    const clean = this.scrubbedInfo();
    const now = Date.now();
    const rewrite =
      info.exit_status !== null ||
      fresh.length === 0 ||
      this.fileChars < SMALL_FILE_BYTES ||
      this.journalChars >= this.fileChars ||
      now - this.lastFileAt >= SNAPSHOT_EVERY_MS;
    if (rewrite) {
      const text = this.fileText(clean);
      this.fileChars = text.length;
      this.journalChars = 0;
      this.lastFileAt = now;
      this.saving = this.saving.then(() => this.writeFile(path, text));
    } else {
      const line = `${JSON.stringify({ base, messages: fresh, info: clean })}\n`;
      this.journalChars += line.length;
      this.saving = this.saving.then(() => this.appendJournal(path, line));
    }
    return this.saving;
  }

  /** The whole file, then the journal removed (its lines are in the file now). */
  private async writeFile(path: string, text: string): Promise<void> {
    await writeFileAtomic(path, text);
    if (this.journal) {
      const j = this.journal;
      this.journal = null;
      await j.close().catch(() => {});
      this.journalStale = true;
    }
    if (this.journalStale) {
      await rm(journalPathOf(path), { force: true });
      this.journalStale = false;
    }
  }

  private async appendJournal(path: string, line: string): Promise<void> {
    const jp = journalPathOf(path);
    try {
      this.journal ??= await open(jp, "a");
      this.journalStale = true;
      await this.journal.write(line);
    } catch (err) {
      throw writeError(jp, err);
    }
  }
}
