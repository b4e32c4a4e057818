import { Command } from "commander";
import { FileWriteError } from "../util/atomic-write.js";
import { VERSION } from "../version.js";
import { surviveBrokenPipes } from "./broken-pipe.js";

/** Command registrations: each command lives in its own file and adds itself to the program. */
const registrations: Array<() => Promise<{ register: (program: Command) => void }>> = [
  () => import("./run.js"),
  () => import("./demo.js"),
  () => import("./config-show.js"),
  () => import("./eval.js"),
  () => import("./inspect.js"),
  () => import("./show.js"),
  () => import("./swebench.js"),
  () => import("./images.js"),
  () => import("./env-gc.js"),
];

/** Entry point of the `patchloop` binary. Exit codes: 0 success, 1 task failure, 2 usage/config error. */
export async function main(argv: string[]): Promise<void> {
  surviveBrokenPipes();
  const program = new Command("patchloop")
    .description("An open, configurable scaffold for software-engineering agents")
    .version(VERSION)
    .exitOverride((err) => {
      process.exit(err.exitCode === 0 ? 0 : 2);
    });
  for (const load of registrations) (await load()).register(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    // Commands report their own expected failures; anything reaching here is shown without a
    // stack trace unless PATCHLOOP_DEBUG is set.
    const e = err as Error;
    process.stderr.write(`error: ${process.env.PATCHLOOP_DEBUG ? (e.stack ?? e.message) : e.message}\n`);
    // A file that could not be written (a full disk) is a failure of the run, not of its usage.
    process.exitCode = err instanceof FileWriteError ? 1 : 2;
  }
}
