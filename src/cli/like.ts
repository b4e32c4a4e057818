import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import { readRunJson } from "../run-folder/run-json.js";

/**
 * `patchloop swebench --like DIR -o NEW`: the command line that made DIR (run.json `info.argv`,
 * read from the folder it was given in, `info.cwd`), with this command's own flags laid over it
 * (a flag given now wins; `-c` layers given now come after the recorded ones, so they win too).
 * `-o` is always this command's. The comparison of what the new run will use with what DIR
 * recorded (patchloop, config, server, dataset, images) is reproduce.ts's.
 */

/** Flags whose value names a file or folder, resolved against the recorded run's folder. */
const PATH_FLAGS = ["subset", "reposDir", "specs", "python", "spool"] as const;
/** Flags of the recorded run that a new run does not take over. */
const NOT_TAKEN = ["output", "like", "redoExisting", "allowConfigChange"] as const;

export interface LikeRun {
  /** The merged flags. */
  flags: Record<string, unknown>;
  /** What DIR's run.json recorded for reproducing it (`info.reproduce`), if anything. */
  recorded: unknown;
  /** The recorded command line, as the person would type it. */
  argv: string[];
}

/** What run.json of `dir` says about its command line: argv and cwd. */
function recordedRun(dir: string): { argv: string[]; cwd: string | null; reproduce: unknown } {
  const path = join(dir, "run.json");
  if (!existsSync(path))
    throw new ConfigError(`--like ${dir}: no run.json there; give the folder of a patchloop swebench run`);
  const read = readRunJson(path);
  if (!read.ok) throw new ConfigError(`--like ${dir}: run.json cannot be read (${read.problem})`);
  const info = read.run.info;
  const argv = info.argv;
  if (argv?.[0] !== "swebench")
    throw new ConfigError(
      `--like ${dir}: run.json records no patchloop swebench command line (info.argv); it was not made by patchloop swebench`,
    );
  return {
    argv: argv.slice(1),
    cwd: info.cwd ?? null,
    reproduce: info.reproduce,
  };
}

/** A recorded path made absolute against the recorded run's folder (when it exists there). */
function anchored(value: string, cwd: string): string {
  if (isAbsolute(value)) return value;
  const there = resolve(cwd, value);
  return existsSync(there) ? there : value;
}

/**
 * The flags a `--like` run uses. `define` adds the swebench command's options to a command (so
 * the recorded argv is read exactly as the command reads it); `given` are this command's flags and
 * `source(key)` says where each came from (commander: "cli" when typed now).
 */
export async function likeRun(
  dir: string,
  given: Record<string, unknown>,
  source: (key: string) => string | undefined,
  define: (cmd: Command) => Command,
): Promise<LikeRun> {
  const rec = recordedRun(resolve(dir));
  const program = new Command("patchloop")
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  let captured: Record<string, unknown> = {};
  define(program.command("swebench"))
    .exitOverride()
    .action((f: Record<string, unknown>) => {
      captured = f;
    });
  // -o is required by the command: the recorded one is there, and dropped below.
  try {
    await program.parseAsync(["swebench", ...rec.argv], { from: "user" });
  } catch (err) {
    throw new ConfigError(
      `--like ${dir}: its recorded command line cannot be read now: ${(err as Error).message}`,
    );
  }
  const cwd = rec.cwd ?? process.cwd();
  for (const k of PATH_FLAGS)
    if (typeof captured[k] === "string") captured[k] = anchored(captured[k] as string, cwd);
  if (Array.isArray(captured.config))
    captured.config = (captured.config as string[]).map((c) => (c.includes("=") ? c : anchored(c, cwd)));
  for (const k of NOT_TAKEN) delete captured[k];
  const flags: Record<string, unknown> = { ...captured };
  for (const [k, v] of Object.entries(given)) {
    if (k === "like") continue;
    if (k === "config") flags.config = [...((captured.config as string[]) ?? []), ...((v as string[]) ?? [])];
    else if (source(k) === "cli" || !(k in flags)) flags[k] = v;
  }
  return { flags, recorded: rec.reproduce, argv: ["swebench", ...rec.argv] };
}
