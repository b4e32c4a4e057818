import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { createScrubber, type SecretSource, secretsOf } from "../config/secret-values.js";

/**
 * `DIR/run.log`: one timestamped line per event, appended (earlier runs' lines are kept). Every line
 * has the secrets of `scrub` (a config's secret values, the host's secret variables) and URL
 * credentials masked as `***`.
 */
export class RunLog {
  private readonly stream: WriteStream;
  private readonly scrub: (text: string) => string;

  constructor(outputDir: string, scrub?: SecretSource) {
    this.scrub = createScrubber(secretsOf(scrub));
    mkdirSync(outputDir, { recursive: true });
    this.stream = createWriteStream(join(outputDir, "run.log"), { flags: "a" });
    this.stream.on("error", () => undefined);
  }

  /** Appends `message` (newlines inside it are indented so each entry stays one block). */
  line(message: string): void {
    this.stream.write(`${new Date().toISOString()} ${this.scrub(message).replace(/\n/g, "\n    ")}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}
