import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import { NoAnswer, systemClock, within } from "../distributed/clock.js";
import { ADMIN_MS, noAnswer, QueueAdmin, type QueueStatus } from "../distributed/queue-admin.js";
import { parseQueueUrl } from "../distributed/queue-url.js";
import { guarded } from "./common.js";

interface QueueFlags {
  queue: string;
  run?: string;
  abandon?: boolean;
}

/** The text of `patchloop queue status`. */
export function statusText(s: QueueStatus, shown: string): string {
  const lines = [`queue ${shown}`];
  if (s.runs.length === 0) lines.push("runs: none (no job waits, runs or is left over)");
  else lines.push("runs:");
  for (const r of s.runs) {
    const who = r.coordinator
      ? `coordinator ${r.coordinator.host}:${r.coordinator.pid} (${r.coordinator.dir})`
      : "no coordinator";
    lines.push(
      `  ${r.run}  waiting ${r.waiting}  running ${r.running}  stalled ${r.stalled}  failed ${r.failed}  ` +
        `finished ${r.finished}  results ${r.results}  ${who}`,
    );
  }
  lines.push(`workers: ${s.workers.length}`);
  for (const w of s.workers) {
    lines.push(
      `  ${w.host}:${w.pid}  ${w.running}/${w.slots} running  environment ${w.environment}  patchloop ${w.version}  since ${w.started_at}` +
        (w.paused ? `  PAUSED: ${w.paused}` : ""),
    );
    for (const c of w.cannot) lines.push(`    cannot run ${c.jobs} job(s), last at ${c.last}: ${c.reason}`);
  }
  for (const r of s.running ?? [])
    lines.push(
      `  running ${r.job} on ${r.worker}${r.stalled ? "  STALLED: its worker is gone; it runs again elsewhere once its lock lapses" : ""}`,
    );
  for (const f of s.failed ?? []) lines.push(`  failed ${f.job}: ${f.reason}`);
  return `${lines.join("\n")}\n`;
}

async function withAdmin<T>(
  flags: QueueFlags,
  body: (a: QueueAdmin, shown: string) => Promise<T>,
): Promise<T> {
  const address = parseQueueUrl(flags.queue);
  let admin: QueueAdmin;
  try {
    admin = await QueueAdmin.open(address);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  try {
    return await within(systemClock, ADMIN_MS, body(admin, address.shown), "the command");
  } catch (err) {
    if (err instanceof NoAnswer)
      throw new ConfigError(noAnswer(address.shown, `no reply within ${ADMIN_MS / 1000} s`).message);
    throw err;
  } finally {
    admin.close();
  }
}

/** `patchloop queue status|drain|clean`: what waits, runs, stalled or failed; remove waiting jobs; remove leftovers. */
export function register(program: Command): void {
  const cmd = program
    .command("queue")
    .description("look at and tidy the queue of distributed runs (status, drain, clean)");
  const common = (c: Command) =>
    c
      .requiredOption("--queue <URL>", "redis://HOST:PORT[/DB] of the queue")
      .option("--run <ID>", "only this run (its id is printed by the coordinator)");
  common(
    cmd.command("status").description("what is waiting, running, stalled and failed, per run; the workers"),
  ).action((flags: QueueFlags) =>
    guarded(() =>
      withAdmin(flags, async (a, shown) => {
        process.stdout.write(statusText(await a.status(flags.run), shown));
        return 0;
      }),
    ),
  );
  common(
    cmd
      .command("drain")
      .description(
        "remove the jobs that wait (running ones finish); their coordinator counts them as not started",
      ),
  ).action((flags: QueueFlags) =>
    guarded(() =>
      withAdmin(flags, async (a) => {
        const n = await a.drain(flags.run);
        process.stdout.write(`removed ${n} waiting job(s)${flags.run ? ` of run ${flags.run}` : ""}\n`);
        return 0;
      }),
    ),
  );
  common(
    cmd
      .command("clean")
      .description(
        "remove what runs without a live coordinator left (finished and failed jobs, results queues)",
      )
      .option(
        "--abandon",
        "with --run: remove that run whole, its waiting jobs and the results that wait for its coordinator too (its running jobs are told to stop)",
      ),
  ).action((flags: QueueFlags) =>
    guarded(async () => {
      if (flags.abandon && !flags.run)
        throw new ConfigError("--abandon needs --run ID: it removes one run's results for good");
      return withAdmin(flags, async (a) => {
        const r = await a.clean(flags.run, flags.abandon ?? false);
        const lines = [
          `removed ${r.removed} job(s) of ${r.runs.length} run(s)${r.runs.length ? `: ${r.runs.join(", ")}` : ""}` +
            (flags.abandon
              ? `; dropped ${r.dropped} result(s), told ${r.cancelled} running job(s) to stop`
              : ""),
        ];
        for (const k of r.kept) lines.push(`kept run ${k.run}: ${k.why}`);
        process.stdout.write(`${lines.join("\n")}\n`);
        return 0;
      });
    }),
  );
}
