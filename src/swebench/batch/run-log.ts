import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";

/** `DIR/run.log`: one timestamped line per event, appended (earlier runs' lines are kept). */
export class RunLog {
  private readonly stream: WriteStream;

  constructor(outputDir: string) {
    mkdirSync(outputDir, { recursive: true });
    this.stream = createWriteStream(join(outputDir, "run.log"), { flags: "a" });
    this.stream.on("error", () => undefined);
  }

  /** Appends `message` (newlines inside it are indented so each entry stays one block). */
  line(message: string): void {
    this.stream.write(`${new Date().toISOString()} ${message.replace(/\n/g, "\n    ")}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}
