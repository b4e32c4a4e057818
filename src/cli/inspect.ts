import { type Command, InvalidArgumentError } from "commander";
import { isLoopback } from "../inspect/http-util.js";
import { type InspectServer, startInspectServer, targetLabel } from "../inspect/server.js";
import { InspectTargetError } from "../inspect/target.js";
import { guarded } from "./guarded.js";

/** Port `patchloop inspect` tries first when --port is not given (a free one is used if it is taken). */
export const DEFAULT_INSPECT_PORT = 8765;

/** Quotes a path for a POSIX shell when it holds anything beyond plain path characters. */
function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The line that tells a user how to open a run folder in the viewer. */
export function inspectHint(dir: string): string {
  return `open this run with: patchloop inspect ${shellQuote(dir)}`;
}

/** Prints inspectHint(dir) (for `patchloop demo` and the batch runner's final summary). */
export function printInspectHint(dir: string, write: (line: string) => void = (l) => console.log(l)): void {
  write(inspectHint(dir));
}

interface InspectOptions {
  port?: number;
  host: string;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new InvalidArgumentError("expected a number from 0 to 65535 (0: any free port)");
  }
  return n;
}

async function start(path: string, opts: InspectOptions): Promise<InspectServer> {
  const port = opts.port ?? DEFAULT_INSPECT_PORT;
  try {
    return await startInspectServer({ path, host: opts.host, port });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
    if (opts.port !== undefined) {
      throw new InspectTargetError(
        `port ${port} on ${opts.host} is in use; choose another with --port (0: any free)`,
      );
    }
    console.error(`port ${port} is in use; using a free port instead`);
    return startInspectServer({ path, host: opts.host, port: 0 });
  }
}

/**
 * `patchloop inspect PATH [--port N] [--host H]`: serves the web viewer for a run folder or one
 * trajectory until interrupted, printing its URL. Exit 2 for a PATH that does not exist or a port in use.
 */
export function register(program: Command): void {
  program
    .command("inspect")
    .description("Browse a run folder or a trajectory in a local web page")
    .argument("<path>", "a run folder (patchloop swebench -o DIR) or one trajectory file")
    .option(
      "--port <n>",
      `port to listen on (default ${DEFAULT_INSPECT_PORT}, or a free one if taken)`,
      parsePort,
    )
    .option(
      "--host <host>",
      "interface to bind (anything but loopback exposes PATH to the network)",
      "127.0.0.1",
    )
    .action((path: string, opts: InspectOptions) =>
      guarded(() => serve(path, opts), { classes: [InspectTargetError], prefix: "patchloop inspect: " }),
    );
}

/** Serves the viewer until Ctrl-C (or SIGTERM); 0 once it listens. */
async function serve(path: string, opts: InspectOptions): Promise<number> {
  const server = await start(path, opts);
  if (!isLoopback(opts.host)) {
    console.error(
      `warning: bound to ${opts.host}; anyone who can reach it can read ${targetLabel(server.target)}`,
    );
  }
  console.log(`patchloop inspect: serving ${targetLabel(server.target)}`);
  console.log(`open ${server.url} (Ctrl-C stops)`);
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return 0;
}
