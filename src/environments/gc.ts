import { ownerAlive } from "../util/process-alive.js";
import { isPodman, runCli, stderrTail } from "./container-cli.js";

/** Options of {@link gcContainers}. */
export interface GcOptions {
  /** `docker` or `podman` (or a path to either). */
  executable: string;
  /** Remove every patchloop container, also those whose run is still alive or on another host. */
  all?: boolean;
  /** Only containers of this run id (label `patchloop.run`). */
  runId?: string;
  /** Report what would be removed without removing it. */
  dryRun?: boolean;
}

/** One container looked at by gc. */
export interface GcEntry {
  id: string;
  name: string;
  runId: string;
  /** Why it was kept, for kept entries. */
  reason?: string;
}

/** What gc did. */
export interface GcReport {
  removed: GcEntry[];
  kept: GcEntry[];
  /** Containers whose removal failed, with the CLI's error. */
  failed: Array<GcEntry & { error: string }>;
}

interface InspectedContainer {
  Id: string;
  Name: string;
  Config?: { Labels?: Record<string, string> | null };
}

/**
 * Removes containers labelled `patchloop=1` whose owning process (label `patchloop.owner`) is no
 * longer running on this host: the leftovers of a killed run. Containers of live runs and of other
 * hosts are kept unless `all` is set. Rejects with a readable Error when the engine cannot be asked.
 */
export async function gcContainers(options: GcOptions): Promise<GcReport> {
  const exe = options.executable;
  const filter = ["--filter", "label=patchloop=1"];
  if (options.runId) filter.push("--filter", `label=patchloop.run=${options.runId}`);
  const listed = await runCli(exe, ["ps", "-a", "-q", "--no-trunc", ...filter], { timeout: 60 });
  if (listed.code !== 0) throw new Error(`${exe} ps failed: ${stderrTail(listed.stderr)}`);
  const ids = listed.stdout.toString("utf8").split(/\s+/).filter(Boolean);
  const report: GcReport = { removed: [], kept: [], failed: [] };
  if (ids.length === 0) return report;
  const inspected = await runCli(exe, ["container", "inspect", ...ids], { timeout: 60 });
  // A container can vanish between ps and inspect: inspect then fails for it but prints the rest.
  let containers: InspectedContainer[] = [];
  try {
    containers = JSON.parse(inspected.stdout.toString("utf8") || "[]") as InspectedContainer[];
  } catch {
    throw new Error(`${exe} container inspect printed no JSON: ${stderrTail(inspected.stderr)}`);
  }
  for (const c of containers) {
    const labels = c.Config?.Labels ?? {};
    const entry: GcEntry = {
      id: c.Id,
      name: c.Name.replace(/^\//, ""),
      runId: labels["patchloop.run"] ?? "",
    };
    const owner = labels["patchloop.owner"];
    const alive = owner ? ownerAlive(owner) : false;
    if (!options.all && alive === true) {
      report.kept.push({ ...entry, reason: `its run (${owner}) is still running` });
      continue;
    }
    if (!options.all && alive === "other-host") {
      report.kept.push({ ...entry, reason: `started on another host (${owner}); use --all to remove` });
      continue;
    }
    if (options.dryRun) {
      report.removed.push(entry);
      continue;
    }
    // podman's rm -f first waits for the stop signal (10 s for a `sleep`); --time 0 kills at once.
    const rmArgs = isPodman(exe) ? ["rm", "-f", "--time", "0", c.Id] : ["rm", "-f", c.Id];
    const rm = await runCli(exe, rmArgs, { timeout: 120 });
    if (rm.code === 0) report.removed.push(entry);
    else report.failed.push({ ...entry, error: stderrTail(rm.stderr, 2) });
  }
  return report;
}
