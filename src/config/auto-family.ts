import { builtinPath } from "./builtin.js";
import type { ConfigLayer } from "./layers.js";
import { isPlain, type Plain } from "./merge.js";
import { familyFromName, type NamedFamily } from "./model-family.js";
import { parseModelName } from "./model-name.js";
import { readYamlConfigFile } from "./yaml-file.js";

/**
 * The family taken from the model's name when no layer sets `model.family` (docs/models.md, "The
 * family from the model's name"): its preset goes in as a layer right after the built-in config,
 * under every file and `-c` the person gave, so anything they set wins. `model.family: none` (or
 * any family set by a layer) turns it off. Only OpenAI-compatible servers: a `gguf:` model renders
 * its file's own template, Anthropic and replay models have no family to guess.
 */
export interface FamilyChoice {
  family: NamedFamily;
  /** Where the name came from: the configured model name, or what the server's /models listed for it. */
  from: "model name" | "server";
  /** The text that named the family. */
  name: string;
  /** The preset's layer (null: patchloop has none for this family, and the run goes as configured). */
  layer: ConfigLayer | null;
  /** The one line that says what was chosen, printed before the first call and by `config show`. */
  line: string;
}

/** The served model's name of a merged (not yet validated) config, when it is an OpenAI-compatible one. */
export function servedModelOf(merged: Plain): string | null {
  const model = isPlain(merged.model) ? merged.model : {};
  if (typeof model.model_name !== "string") return null;
  try {
    const parsed = parseModelName(model.model_name);
    return parsed.provider === "openai" ? parsed.model : null;
  } catch {
    return null;
  }
}

/** Whether the layers left `model.family` unset (null), so that one may be taken from the name. */
export function familyUnset(merged: Plain): boolean {
  const model = isPlain(merged.model) ? merged.model : {};
  return model.family === null || model.family === undefined;
}

/**
 * The family choice for a merged config: from the served name, else from `serverNames` (what the
 * server's /models said the served name is, e.g. vLLM's `root`). Null: a family is set (or `none`),
 * the model is not an OpenAI-compatible one, or no name names a family.
 */
export function chooseFamily(merged: Plain, serverNames: readonly string[] = []): FamilyChoice | null {
  if (!familyUnset(merged)) return null;
  const served = servedModelOf(merged);
  if (served === null) return null;
  const candidates: Array<{ name: string; from: FamilyChoice["from"] }> = [
    { name: served, from: "model name" },
    ...serverNames.map((name) => ({ name, from: "server" as const })),
  ];
  for (const { name, from } of candidates) {
    const family = familyFromName(name);
    if (!family) continue;
    const said =
      from === "model name"
        ? `from the model name "${name}"`
        : `from the server's /models: "${served}" is "${name}"`;
    if (family.layer === null)
      return {
        family,
        from,
        name,
        layer: null,
        line: `model family ${family.label} (${said}): patchloop has no preset for it, so the run goes as configured`,
      };
    const layer: ConfigLayer = {
      source: `family preset "${family.layer}" (${from === "model name" ? "from the model name" : "from the server's /models"})`,
      data: readYamlConfigFile(builtinPath(family.layer), `configs/${family.layer}.yaml`),
    };
    return {
      family,
      from,
      name,
      layer,
      line: `model family ${family.label} (${said}): applying the ${family.layer} preset (configs/${family.layer}.yaml) under your -c layers; -c model.family=none turns this off`,
    };
  }
  return null;
}
