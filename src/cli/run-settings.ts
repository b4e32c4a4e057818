import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigLayer } from "../config/layers.js";

/**
 * What a run folder remembers of the machine its batch ran on (run.json: the resolved config's
 * environment section, `info.machine`), so that a command given the folder (`patchloop select
 * DIR`) tests the way the batch did unless its own flags say otherwise.
 */
export interface RunSettings {
  /** `environment.environment_class` of the run's config. */
  environmentClass?: string;
  /** The clones folder (`--repos-dir`, absolute); absent in run.json of an older patchloop. */
  reposDir?: string;
  /** `--python` of the batch (with --evaluate), absolute or a name on PATH. */
  python?: string;
  /** `--specs` of the batch (with --evaluate), absolute. */
  specs?: string;
  /**
   * The run config's sections that decide how candidates are tested and chosen (`environment`,
   * `run.select`, `model`), values masked in run.json (`***`) left out: the layer a command lays
   * under its own `-c`.
   */
  layer?: ConfigLayer;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const text = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** A copy without the values run.json masked (secrets, as `***`): the defaults then apply to them. */
function unmasked(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unmasked);
  if (!isMap(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== "***") out[k] = unmasked(x);
  return out;
}

/** The settings `DIR/run.json` records; empty when it is missing or unreadable (an older folder). */
export function readRunSettings(dir: string): RunSettings {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(join(dir, "run.json"), "utf8"));
  } catch {
    return {};
  }
  if (!isMap(doc)) return {};
  const config = isMap(doc.config) ? doc.config : {};
  const info = isMap(doc.info) ? doc.info : {};
  const machine = isMap(info.machine) ? info.machine : {};
  const env = isMap(config.environment) ? config.environment : undefined;
  const run = isMap(config.run) ? config.run : {};
  const data: Record<string, unknown> = {};
  if (env) data.environment = unmasked(env);
  if (isMap(run.select)) data.run = { select: unmasked(run.select) };
  if (isMap(config.model)) data.model = unmasked(config.model);
  const out: RunSettings = {};
  const kind = text(env?.environment_class);
  if (kind) out.environmentClass = kind;
  const repos = text(machine.repos_dir);
  if (repos) out.reposDir = repos;
  const python = text(machine.python);
  if (python) out.python = python;
  const specs = text(machine.specs);
  if (specs) out.specs = specs;
  if (Object.keys(data).length > 0)
    out.layer = { source: `${join(dir, "run.json")} (the run's config)`, data };
  return out;
}
