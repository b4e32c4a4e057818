import { ConfigError } from "../config/errors.js";

/** An error class whose message is a whole explanation for the person (their input was wrong). */
type InputErrorClass = abstract new (...args: never[]) => Error;

/** A command's own input errors, and the words before their message (`patchloop compare: `). */
export interface InputErrors {
  classes: InputErrorClass[];
  prefix: string;
}

/**
 * How every command ends (the one convention): its body returns the exit status (0 done, 1 a task
 * or an instance failed, as each command's help says); a ConfigError prints `error: MESSAGE`, and an
 * error of the command's own input classes (looked at first: they may list ConfigError too)
 * `PREFIX MESSAGE`, on one line, with exit status 2.
 * Anything else goes on to main (cli/main.ts): one line, exit status 2, or 1 for a file that could
 * not be written.
 */
export async function guarded(body: () => Promise<number>, input?: InputErrors): Promise<void> {
  try {
    process.exitCode = await body();
  } catch (err) {
    if (input?.classes.some((c) => err instanceof c)) {
      process.stderr.write(`${input.prefix}${(err as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
}

/**
 * Runs `body` with Ctrl-C handled as eval and select handle it: the first stops new instances
 * (the signal `body` gets aborts; running ones finish and what they wrote stays), the second
 * leaves at once with status 130.
 */
export async function untilSecondInterrupt<T>(body: (stop: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSigint = () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
    process.stderr.write("\nstopping: no new instances; Ctrl-C again to quit now\n");
  };
  process.on("SIGINT", onSigint);
  try {
    return await body(stop.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}
