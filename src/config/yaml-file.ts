import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import { snapshotOf } from "./builtin-snapshot.js";
import { ConfigError } from "./errors.js";
import { isPlain, type Plain } from "./merge.js";

/** Parses YAML text; errors name the source with line and column. */
export function parseYaml(text: string, source: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = e.linePos?.[0];
    const where = pos ? `${source}:${pos.line}:${pos.col}` : source;
    const detail = e.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigError(`invalid YAML in ${where}: ${detail}`);
  }
  return doc.toJS();
}

/** Reads a YAML config file whose top level must be a mapping (an empty file is an empty mapping). */
export function readYamlConfigFile(path: string, label = path): Plain {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ConfigError(`config file not found: ${label}`);
    throw new ConfigError(`cannot read config file ${label}: ${(err as Error).message}`);
  }
  const known = parsed.get(path);
  if (known?.text === text) return structuredClone(known.data);
  const data = snapshotOf(path, text) ?? parseYaml(text, label);
  if (data === null || data === undefined) return {};
  if (!isPlain(data)) {
    throw new ConfigError(
      `config file ${label} must be a mapping of sections (agent, model, environment, run), got ${Array.isArray(data) ? "a list" : typeof data}`,
    );
  }
  parsed.set(path, { text, data: structuredClone(data) });
  return data;
}

/**
 * Each file's last text and what it parsed to: a command loads its config more than once (swebench
 * asks the server which model it serves between two loads), and parsing configs/base.yaml is most
 * of a load (issue 45). A changed text is parsed again; callers get a copy of their own.
 */
const parsed = new Map<string, { text: string; data: Plain }>();
