import { Command } from "commander";
import { FileWriteError } from "../util/atomic-write.js";
import { VERSION } from "../version.js";
import { surviveBrokenPipes } from "./broken-pipe.js";

type Registration = () => Promise<{ register: (program: Command) => void }>;

/**
 * Command registrations by the program's first word: each command lives in its own file and adds
 * itself to the program. Only the module of the command being run is loaded (start-up time and
 * memory: `run` does not load the viewer, the graders or the batch runner); help, --version and an
 * unknown word load them all, so that help lists every command and commander names the closest one.
 */
const registrations: Record<string, Registration> = {
  run: () => import("./run.js"),
  demo: () => import("./demo.js"),
  config: () => import("./config-show.js"),
  eval: () => import("./eval.js"),
  compare: () => import("./compare.js"),
  report: () => import("./report.js"),
  select: () => import("./select.js"),
  inspect: () => import("./inspect.js"),
  show: () => import("./show.js"),
  swebench: () => import("./swebench.js"),
  localize: () => import("./localize.js"),
  worker: () => import("./worker.js"),
  queue: () => import("./queue.js"),
  images: () => import("./images.js"),
  env: () => import("./env-gc.js"),
  tokens: () => import("./tokens.js"),
  doctor: () => import("./doctor.js"),
};

/** The command word of `argv` (node, script, then the first argument), when it names one. */
function commandWord(argv: string[]): string | null {
  const word = argv[2];
  return word !== undefined && Object.hasOwn(registrations, word) ? word : null;
}

/** Entry point of the `patchloop` binary. Exit codes: 0 success, 1 task failure, 2 usage/config error. */
export async function main(argv: string[]): Promise<void> {
  surviveBrokenPipes();
  const program = new Command("patchloop")
    .description("An open, configurable scaffold for software-engineering agents")
    .version(VERSION)
    .exitOverride((err) => {
      process.exit(err.exitCode === 0 ? 0 : 2);
    });
  const word = commandWord(argv);
  const needed = word ? [registrations[word]] : Object.values(registrations);
  for (const load of needed) (await load()).register(program);
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
