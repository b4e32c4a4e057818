import { rm } from "node:fs/promises";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { makeWorkspaceRoot } from "../instance/workspace-root.js";
import { localizationVars } from "../localize/format.js";
import type { LocalizationVars } from "../localize/types.js";
import { instanceReader, localizeRow } from "./localize-instance.js";

/**
 * The `localization` variable of one SWE-bench instance for `patchloop config show --instance`:
 * made from a checkout of `reposDir` when given, else in the instance's container (docker or
 * podman configs). The re-rank is not run here (config show makes no model calls). A failure
 * comes back as `error`, with an empty ranking, so the messages still render.
 */
export async function localizationForShow(
  config: Config,
  row: SwebenchInstance,
  reposDir?: string,
): Promise<LocalizationVars> {
  const lc = config.agent.localize;
  const kind = config.environment.environment_class;
  if (!reposDir && kind !== "docker" && kind !== "podman")
    return {
      enabled: true,
      text: "",
      files: [],
      symbols: [],
      error: `localization needs the repository: give --repos-dir DIR (a folder of owner__repo clones) with environment ${kind}`,
    };
  const root = await makeWorkspaceRoot();
  try {
    const limits = { maxFileBytes: lc.max_file_bytes };
    const read = instanceReader(config, { reposDir, workRoot: root }, limits);
    const r = await localizeRow(row, read, { topK: lc.top_k, topSymbols: lc.top_symbols });
    return localizationVars(r.line.files, r.line.symbols, r.line.error);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
