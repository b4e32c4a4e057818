import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import { loadConfig } from "../config/load.js";
import type { EnvironmentConfig } from "../config/schema.js";
import { imageForRow, type PullProgress, type PullSummary, pullImages } from "../dataset/images.js";
import { DatasetError, loadDataset } from "../dataset/load.js";
import { selectInstances } from "../dataset/select.js";
import { subsetHelp } from "../dataset/subset-help.js";
import { plural } from "../util/plural.js";
import { guarded } from "./guarded.js";

/** Flags of `patchloop images pull`, as commander hands them over. */
export interface ImagesPullFlags {
  subset: string;
  split: string;
  slice?: string;
  filter?: string;
  parallel: string;
  pullTimeout: string;
  retries: string;
  executable: string;
  dryRun?: boolean;
  /** Config layers (environment.image_template, environment.platform, ...). */
  config?: string[];
  /** Shorthand for `-c environment.platform=P`. */
  platform?: string;
}

/** Where the command writes: the summary to `out`, progress and errors to `err`. */
export interface ImagesIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Progress as one line redrawn in place (a terminal) instead of a line per event. */
  tty: boolean;
}

class UsageError extends Error {}

function wholeNumber(value: string, flag: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new UsageError(`${flag} needs a whole number of at least ${min}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function plainLine(p: PullProgress): string | undefined {
  const at = `[${p.done}/${p.total}]`;
  const on = p.platform ? ` (${p.platform})` : "";
  if (p.event === "present") return `${at} present ${p.name}${on}`;
  if (p.event === "pulling") return `${at} pulling ${p.name}${p.try && p.try > 1 ? ` (try ${p.try})` : ""}`;
  if (p.event === "pulled") return `${at} pulled ${p.name}${on}`;
  if (p.event === "retry") return `${at} retrying ${p.name} after: ${p.error?.split("\n").pop()}`;
  return `${at} FAILED ${p.name}: ${p.error?.split("\n").pop()}`;
}

/** The closing summary: counts and the platforms of the images, then each failure with its reason. */
export function formatPullSummary(s: PullSummary, asked?: string): string {
  const platforms = [...new Set(Object.values(s.platforms))].sort();
  const lines = [
    `pulled ${s.pulled.length}, present ${s.present.length}, failed ${s.failed.length}` +
      (platforms.length ? `; platform ${platforms.join(", ")}` : "") +
      (asked ? ` (asked for ${asked})` : ""),
  ];
  for (const f of s.failed) lines.push(`  failed ${f.name}: ${f.error.split("\n").join("\n    ")}`);
  return `${lines.join("\n")}\n`;
}

/**
 * The body of `patchloop images pull`; returns the exit status: 0 every image is present or was
 * pulled, 1 some pull failed, 2 usage or dataset error.
 */
export async function runImagesPull(flags: ImagesPullFlags, io: ImagesIo): Promise<number> {
  try {
    const parallel = wholeNumber(flags.parallel, "-P", 1);
    const pullTimeout = wholeNumber(flags.pullTimeout, "--pull-timeout", 1);
    const retries = wholeNumber(flags.retries, "--retries", 0);
    const layers = [
      ...(flags.config ?? []),
      ...(flags.platform ? [`environment.platform=${flags.platform}`] : []),
    ];
    let settings: EnvironmentConfig;
    try {
      settings = loadConfig({ configArgs: layers, defaultConfig: "swebench" }).config.environment;
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(err.message);
      throw err;
    }
    const rows = selectInstances(await loadDataset({ subset: flags.subset, split: flags.split }), {
      slice: flags.slice,
      filter: flags.filter,
    });
    const names = [...new Set(rows.map((r) => imageForRow(r, settings)))];
    const platform = settings.platform ?? undefined;
    if (names.length === 0) {
      io.err("no instances selected: check --subset, --slice and --filter\n");
      return 2;
    }
    if (flags.dryRun) {
      io.out(`${names.join("\n")}\n`);
      return 0;
    }
    io.err(
      `${plural(names.length, "image")} with ${flags.executable}, ${parallel} at a time${platform ? `, platform ${platform}` : ""}\n`,
    );
    const active = new Set<string>();
    const counts = { pulled: 0, present: 0, failed: 0 };
    const summary = await pullImages(names, {
      executable: flags.executable,
      parallel,
      pullTimeout,
      retries,
      platform,
      onProgress: (p) => {
        if (p.event === "pulling") active.add(p.name);
        else if (p.event !== "retry") active.delete(p.name);
        if (p.event === "pulled" || p.event === "present" || p.event === "failed") counts[p.event]++;
        if (!io.tty) {
          const line = plainLine(p);
          if (line) io.err(`${line}\n`);
          return;
        }
        const now = [...active].map((n) => n.replace(/^(?:.*\/)?sweb\.eval\.[a-z0-9_]+\./, ""));
        const status =
          `[${p.done}/${p.total}] pulled ${counts.pulled} present ${counts.present} failed ${counts.failed}` +
          (now.length > 0 ? ` | pulling ${now.join(", ")}` : "");
        io.err(`\r\x1b[2K${status.slice(0, 160)}`);
        if (p.event === "failed") io.err(`\n${plainLine(p)}\n`);
      },
    });
    if (io.tty) io.err("\n");
    io.out(formatPullSummary(summary, platform));
    return summary.failed.length > 0 ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof DatasetError) {
      io.err(`error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

/** Adds `patchloop images pull` to the program. */
export function register(program: Command): void {
  const images = program.command("images").description("Container images of SWE-bench instances");
  images
    .command("pull")
    .description("Pull the instance images of a dataset selection ahead of a run")
    .option(
      "--subset <NAME|PATH>",
      `${subsetHelp()} (a named one pulls from its own image namespace)`,
      "lite",
    )
    .option("--split <SPLIT>", "dataset split (test or dev)", "test")
    .option("--slice <A:B>", "Python-style slice of the selected rows")
    .option("--filter <REGEX>", "only instance ids matching REGEX (at the start)")
    .option("-P, --parallel <N>", "pulls at the same time", "2")
    .option("--pull-timeout <S>", "seconds one pull may take", "600")
    .option("--retries <N>", "extra tries after a failed pull", "2")
    .option("--executable <CLI>", "docker or podman", "docker")
    .option("--dry-run", "print the image names and pull nothing")
    .option(
      "-c, --config <CONFIG>",
      "config layers (environment.image_template, environment.platform)",
      (v: string, prev: string[] = []) => [...prev, v],
      [],
    )
    .option("--platform <OS/ARCH>", "pull for this platform, e.g. linux/amd64 (environment.platform)")
    .addHelpText(
      "after",
      "\nExit status: 0 all images present or pulled; 1 some pull failed; 2 usage or dataset error.",
    )
    .action((flags: ImagesPullFlags) =>
      guarded(() =>
        runImagesPull(flags, {
          out: (t) => process.stdout.write(t),
          err: (t) => process.stderr.write(t),
          tty: process.stderr.isTTY === true,
        }),
      ),
    );
}
