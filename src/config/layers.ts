import { existsSync } from "node:fs";
import { builtinNames, builtinPath } from "./builtin.js";
import { closest } from "./closest.js";
import { ConfigError } from "./errors.js";
import type { Plain } from "./merge.js";
import { isSecretKey } from "./redact.js";
import { parseYaml, readYamlConfigFile } from "./yaml-file.js";

/** One `-c` argument turned into data, with a label saying where it came from. */
export interface ConfigLayer {
  source: string;
  data: Plain;
}

const DOTTED_KEY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** `a.b.c=value` → `{a: {b: {c: <value parsed as YAML>}}}`. */
export function parseOverride(arg: string): ConfigLayer {
  const eq = arg.indexOf("=");
  const key = arg.slice(0, eq).trim();
  const raw = arg.slice(eq + 1);
  const secret = key.split(".").some(isSecretKey);
  const source = secret ? `-c ${key}=***` : `-c ${arg}`;
  if (!DOTTED_KEY.test(key)) {
    throw new ConfigError(`${source}: "${key}" is not a dotted key such as agent.step_limit`);
  }
  if (raw.trim() === "") {
    throw new ConfigError(
      `${source}: no value after "=". Give one (e.g. ${key}=100); for an empty string write ${key}="''"`,
    );
  }
  const value = parseYaml(raw, source);
  const parts = key.split(".");
  let data: Plain = { [parts[parts.length - 1]]: value };
  for (let i = parts.length - 2; i >= 0; i--) data = { [parts[i]]: data };
  return { source, data };
}

/** Resolves one `-c` argument: `key=value`, a YAML file, or a built-in config name. */
export function resolveLayer(arg: string): ConfigLayer {
  const eq = arg.indexOf("=");
  if (eq > 0 && !arg.slice(0, eq).includes("/") && !existsSync(arg)) return parseOverride(arg);
  if (/\.ya?ml$/i.test(arg) || arg.includes("/") || existsSync(arg)) {
    return { source: arg, data: readYamlConfigFile(arg) };
  }
  const names = builtinNames();
  if (!names.includes(arg)) {
    const hint = closest(arg, names);
    throw new ConfigError(
      `-c ${arg}: not a built-in config, a YAML file or a key=value override. ` +
        (hint ? `Did you mean "${hint}"? ` : "") +
        `Built-in configs: ${names.join(", ")}`,
    );
  }
  return {
    source: `built-in config "${arg}"`,
    data: readYamlConfigFile(builtinPath(arg), `configs/${arg}.yaml`),
  };
}
