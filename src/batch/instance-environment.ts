import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { openInstance } from "../instance/open.js";
import type { OpenInstanceOptions } from "../instance/types.js";
import type { InstanceEnvironment } from "./types.js";

/**
 * The batch's opener: the instance's environment for the agent (see `openInstance`), with the
 * model's API key variable kept from local commands, in the shape run-instance.ts takes.
 */
export async function openInstanceEnvironment(
  config: Config,
  row: SwebenchInstance,
  options: OpenInstanceOptions,
): Promise<InstanceEnvironment> {
  const opened = await openInstance(config.environment, row, "agent", {
    ...options,
    hideEnv: config.model.api_key_env ? [config.model.api_key_env] : [],
  });
  return { env: opened.env, baseCommit: opened.baseCommit, cleanup: opened.close };
}
