import type { Command } from "commander";
import { type GcReport, gcContainers } from "../environments/gc.js";
import type { CommandIo } from "./common.js";
import { guarded } from "./guarded.js";

/** Flags of `patchloop env gc`. */
export interface EnvGcFlags {
  executable?: string;
  all?: boolean;
  runId?: string;
  dryRun?: boolean;
}

function describeReport(exe: string, r: GcReport, dryRun: boolean): string {
  const lines: string[] = [];
  for (const e of r.removed)
    lines.push(`${exe}: ${dryRun ? "would remove" : "removed"} ${e.name} (run ${e.runId || "?"})`);
  for (const e of r.kept) lines.push(`${exe}: kept ${e.name}: ${e.reason}`);
  for (const e of r.failed) lines.push(`${exe}: could not remove ${e.name}: ${e.error}`);
  if (lines.length === 0) lines.push(`${exe}: no patchloop containers`);
  return `${lines.join("\n")}\n`;
}

/**
 * The body of `patchloop env gc`: removes containers labelled `patchloop=1` that a killed run left
 * behind. Without --executable it asks docker and podman and skips one that is not usable here.
 * Returns the exit status: 0 done, 1 a removal failed or the named engine could not be asked.
 */
export async function runEnvGc(flags: EnvGcFlags, io: CommandIo): Promise<number> {
  const engines = flags.executable ? [flags.executable] : ["docker", "podman"];
  let status = 0;
  for (const exe of engines) {
    try {
      const report = await gcContainers({
        executable: exe,
        all: flags.all,
        runId: flags.runId,
        dryRun: flags.dryRun,
      });
      io.out(describeReport(exe, report, flags.dryRun === true));
      if (report.failed.length > 0) status = 1;
    } catch (err) {
      if (flags.executable) {
        io.err(`error: ${(err as Error).message}\n`);
        status = 1;
      } else {
        io.err(`${exe}: skipped (${(err as Error).message.split("\n")[0]})\n`);
      }
    }
  }
  return status;
}

/** Adds `patchloop env gc` to the program. */
export function register(program: Command): void {
  const env = program.command("env").description("Task environments (containers, sandboxes)");
  env
    .command("gc")
    .description("Remove patchloop containers left behind by runs that were killed")
    .option("--executable <CLI>", "docker or podman (default: both, where usable)")
    .option("--all", "also remove containers of runs still alive or started on other hosts")
    .option("--run-id <ID>", "only containers of this run")
    .option("--dry-run", "list what would be removed")
    .addHelpText("after", "\nExit status: 0 done; 1 a removal failed or the named engine could not be asked.")
    .action((flags: EnvGcFlags) =>
      guarded(() =>
        runEnvGc(flags, {
          out: (t) => process.stdout.write(t),
          err: (t) => process.stderr.write(t),
        }),
      ),
    );
}
