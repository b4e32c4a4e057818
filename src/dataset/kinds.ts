import { z } from "zod";
import { DatasetError } from "./errors.js";
import { parsePyStringList } from "./py-list.js";
import type { LiveFields, ProFields, SwebenchInstance } from "./types.js";

/**
 * The dataset layouts patchloop reads, each as its own harness writes its rows:
 * - `swebench`: the Hugging Face SWE-bench schema (Lite, Verified, full, Multilingual, SWE-Gym);
 * - `pro`: SWE-bench Pro (`fail_to_pass` / `pass_to_pass` / `selected_test_files_to_run` as Python
 *   list literals, `before_repo_set_cmd`, `dockerhub_tag`, `repo_language`), repository at /app;
 * - `live`: SWE-bench-Live (`rebuild_cmds`, `test_cmds`, `print_cmds` lists, `log_parser` a
 *   parser's Python source or `pytest`, `docker_image`, `platform` on the Windows split);
 * - `rebench`: SWE-rebench (the SWE-bench fields plus `install_config` with the test command and
 *   parser, and `docker_image`).
 * A local file's layout is told by its columns (`layoutOf`).
 */
export const DATASET_LAYOUTS = ["swebench", "pro", "live", "rebench"] as const;
export type DatasetLayout = (typeof DATASET_LAYOUTS)[number];

const text = z.string();
const optText = z.string().nullish();
/** A list of strings as the dataset stores it: a JSON array, or a JSON-encoded one. */
const stringList = z.union([z.array(z.string()), z.string()]);

/** The fields every layout's row starts with. */
const rowStart = {
  instance_id: z.string().min(1),
  repo: z.string().min(1),
  base_commit: z.string().min(1),
  patch: optText,
};

const SwebenchRow = z
  .object({
    ...rowStart,
    test_patch: optText,
    problem_statement: optText,
    hints_text: optText,
    created_at: optText,
    version: optText,
    environment_setup_commit: optText,
    FAIL_TO_PASS: stringList.nullish(),
    PASS_TO_PASS: stringList.nullish(),
    test_cmd: optText,
    log_parser: optText,
    image_name: optText,
    docker_image: optText,
  })
  .passthrough();

const ProRow = z
  .object({
    ...rowStart,
    test_patch: optText,
    problem_statement: optText,
    requirements: optText,
    interface: optText,
    repo_language: optText,
    fail_to_pass: z.union([z.string(), z.array(z.string())]),
    pass_to_pass: z.union([z.string(), z.array(z.string())]),
    before_repo_set_cmd: text,
    selected_test_files_to_run: z.union([z.string(), z.array(z.string())]),
    dockerhub_tag: z.string().min(1),
  })
  .passthrough();

const LiveRow = z
  .object({
    ...rowStart,
    test_patch: text,
    problem_statement: optText,
    hints_text: optText,
    created_at: optText,
    FAIL_TO_PASS: z.array(z.string()),
    PASS_TO_PASS: z.array(z.string()),
    rebuild_cmds: z.array(z.string()).nullish(),
    test_cmds: z.array(z.string()).min(1),
    print_cmds: z.array(z.string()).nullish(),
    log_parser: z.string().min(1),
    docker_image: optText,
    platform: z.enum(["linux", "windows"]).nullish(),
  })
  .passthrough();

const InstallConfig = z
  .object({
    test_cmd: z.union([z.string(), z.array(z.string())]).nullish(),
    log_parser: optText,
  })
  .passthrough();

const RebenchRow = SwebenchRow.extend({ install_config: InstallConfig.nullish() });

/** The `pro` and `live` records of a row this module made (a job's row read back, a saved run). */
const ProFieldsSchema = z
  .object({
    before_repo_set_cmd: z.string(),
    selected_test_files: z.array(z.string()),
    dockerhub_tag: z.string().min(1),
    language: z.string().optional(),
  })
  .strict();
const LiveFieldsSchema = z
  .object({
    rebuild_cmds: z.array(z.string()),
    test_cmds: z.array(z.string()).min(1),
    print_cmds: z.array(z.string()),
    parser: z.string().min(1),
    platform: z.enum(["linux", "windows"]),
  })
  .strict();

/** Which layout a row's columns are in. */
export function layoutOf(row: Record<string, unknown>): DatasetLayout {
  if ("dockerhub_tag" in row || "before_repo_set_cmd" in row || "selected_test_files_to_run" in row)
    return "pro";
  if ("test_cmds" in row || "rebuild_cmds" in row || "print_cmds" in row) return "live";
  if ("install_config" in row) return "rebench";
  return "swebench";
}

function problem(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue.path.length ? issue.path.join(".") : "the row";
  return `${field}: ${issue.message}`;
}

function pyList(row: Record<string, unknown>, field: string, where: string): string[] {
  const value = row[field];
  if (Array.isArray(value)) return value as string[];
  const parsed = parsePyStringList(String(value));
  if (!parsed.ok) {
    throw new DatasetError(
      `${where}: ${field} is not a list of strings (${parsed.error}); got ${JSON.stringify(String(value).slice(0, 120))}. ` +
        `SWE-bench Pro writes it as a Python list literal, e.g. "['test_a', 'test_b']".`,
    );
  }
  return parsed.items;
}

/**
 * Checks one raw row against its layout's schema and returns it in the shape the rest of
 * patchloop reads: the row's own fields kept as they are, plus
 * - Pro: `FAIL_TO_PASS` / `PASS_TO_PASS` as JSON-encoded lists, `workdir` `/app` and `pro`;
 * - Live: `live` (its commands, parser and platform); its `log_parser` moves there, since it is a
 *   parser's source, not a parser name;
 * - SWE-rebench: `test_cmd` and `log_parser` from `install_config` where the row has none.
 * `where` names the row in messages (`file: line 3`).
 */
export function normalizeRow(
  raw: Record<string, unknown>,
  layout: DatasetLayout,
  where: string,
): SwebenchInstance {
  if (raw.pro !== undefined || raw.live !== undefined) return checkNormalized(raw, where);
  const schema = { swebench: SwebenchRow, pro: ProRow, live: LiveRow, rebench: RebenchRow }[layout];
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const id = typeof raw.instance_id === "string" ? ` (${raw.instance_id})` : "";
    throw new DatasetError(
      `${where}${id} is not a ${layout === "swebench" ? "SWE-bench" : layoutName(layout)} row: ${problem(parsed.error)}. ` +
        `Fields of this layout: ${Object.keys(schema.shape).join(", ")}.`,
    );
  }
  const row: Record<string, unknown> = { ...raw };
  const named = `${where} (${row.instance_id})`;
  if (layout === "pro") {
    const pro: ProFields = {
      before_repo_set_cmd: String(row.before_repo_set_cmd),
      selected_test_files: pyList(row, "selected_test_files_to_run", named),
      dockerhub_tag: String(row.dockerhub_tag),
      language: typeof row.repo_language === "string" ? row.repo_language : undefined,
    };
    row.FAIL_TO_PASS = JSON.stringify(pyList(row, "fail_to_pass", named));
    row.PASS_TO_PASS = JSON.stringify(pyList(row, "pass_to_pass", named));
    row.pro = pro;
    row.workdir = "/app";
  } else if (layout === "live") {
    const data = parsed.data as z.infer<typeof LiveRow>;
    const live: LiveFields = {
      rebuild_cmds: data.rebuild_cmds ?? [],
      test_cmds: data.test_cmds,
      print_cmds: data.print_cmds ?? [],
      parser: data.log_parser,
      platform: data.platform ?? "linux",
    };
    delete row.log_parser;
    row.live = live;
  } else if (layout === "rebench") {
    const config = (parsed.data as z.infer<typeof RebenchRow>).install_config;
    if (row.test_cmd === undefined && config?.test_cmd) {
      row.test_cmd = Array.isArray(config.test_cmd) ? config.test_cmd.join("; ") : config.test_cmd;
    }
    if (row.log_parser === undefined && config?.log_parser) row.log_parser = config.log_parser;
  }
  return row as SwebenchInstance;
}

/** A row normalized before: its `pro` / `live` record must be one this module makes. */
function checkNormalized(raw: Record<string, unknown>, where: string): SwebenchInstance {
  for (const [field, schema] of [
    ["pro", ProFieldsSchema],
    ["live", LiveFieldsSchema],
  ] as const) {
    if (raw[field] === undefined) continue;
    const parsed = schema.safeParse(raw[field]);
    if (!parsed.success) {
      throw new DatasetError(`${where}: its ${field} record is not valid: ${problem(parsed.error)}.`);
    }
  }
  const base = SwebenchRow.safeParse(raw);
  if (!base.success) throw new DatasetError(`${where}: ${problem(base.error)}.`);
  return raw as SwebenchInstance;
}

function layoutName(layout: DatasetLayout): string {
  return { swebench: "SWE-bench", pro: "SWE-bench Pro", live: "SWE-bench-Live", rebench: "SWE-rebench" }[
    layout
  ];
}
