import { join } from "node:path";
import type { ConfigLayer } from "../config/layers.js";
import { readRunJson } from "../run-folder/run-json.js";
import type { EnvironmentFlags } from "./eval-flags.js";

/**
 * What a run folder remembers of the machine its batch ran on (run.json: the resolved config's
 * environment section, `info.machine`), so that a command given the folder (`patchloop select
 * DIR`, `patchloop eval --predictions DIR`) tests the way the batch did unless its own flags say
 * otherwise. The one reader of these for both.
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
   * The run config's sections that decide how tests run and candidates are chosen
   * (`environment`, `run.select`, `model`), values masked in run.json (`***`) left out.
   */
  sections: { environment?: unknown; select?: unknown; model?: unknown };
  /** Where run.json is (named as the layers' source). */
  path?: string;
}

/**
 * Flags first, then what run.json records (environment class, clones folder, Python, specs): the
 * environment flags a command given a run folder resolves (`resolveEnvironmentFlags`).
 */
export function withRunSettings<F extends EnvironmentFlags>(flags: F, run: RunSettings): F {
  return {
    ...flags,
    environment: flags.environment ?? run.environmentClass,
    reposDir: flags.reposDir ?? run.reposDir,
    python: flags.python ?? run.python,
    specs: flags.specs ?? run.specs,
  };
}

/**
 * The run config's `sections` as one config layer, laid under the command's own `-c` layers;
 * undefined when run.json has none of them.
 */
export function runConfigLayer(
  run: RunSettings,
  sections: Array<"environment" | "select" | "model">,
): ConfigLayer | undefined {
  const data: Record<string, unknown> = {};
  const { environment, select, model } = run.sections;
  if (sections.includes("environment") && environment) data.environment = environment;
  if (sections.includes("select") && select) data.run = { select };
  if (sections.includes("model") && model) data.model = model;
  if (Object.keys(data).length === 0) return undefined;
  return { source: `${run.path ?? "run.json"} (the run's config)`, data };
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
  const path = join(dir, "run.json");
  const read = readRunJson(path);
  if (!read.ok) return { sections: {} };
  const doc = read.run;
  const config = isMap(doc.config) ? doc.config : {};
  const machine = doc.info.machine ?? {};
  const env = isMap(config.environment) ? config.environment : undefined;
  const run = isMap(config.run) ? config.run : {};
  const out: RunSettings = {
    path,
    sections: {
      ...(env ? { environment: unmasked(env) } : {}),
      ...(isMap(run.select) ? { select: unmasked(run.select) } : {}),
      ...(isMap(config.model) ? { model: unmasked(config.model) } : {}),
    },
  };
  const kind = text(env?.environment_class);
  if (kind) out.environmentClass = kind;
  const repos = text(machine.repos_dir);
  if (repos) out.reposDir = repos;
  const python = text(machine.python);
  if (python) out.python = python;
  const specs = text(machine.specs);
  if (specs) out.specs = specs;
  return out;
}
