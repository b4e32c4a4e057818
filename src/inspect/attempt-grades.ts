import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { FoundFile } from "./scan-files.js";
import type { AttemptGrade } from "./view/view-model.js";

/** Largest attempts.json read (bytes). */
const MAX_BYTES = 50 * 1024 * 1024;

/** The part of `eval`'s attempts.json (src/batch/attempts-report.ts) the viewer uses. */
const AttemptsJson = z.object({
  instances: z.array(
    z.object({
      instance_id: z.string().min(1),
      attempts: z.record(z.string().regex(/^[1-9]\d*$/), z.enum(["resolved", "unresolved", "empty"])),
    }),
  ),
});

/** Grades by instance id and attempt number, the files read, and those that could not be. */
export interface AttemptGrades {
  byId: Map<string, Map<number, AttemptGrade>>;
  files: string[];
  problems: string[];
}

const EXPECTED =
  'expected {instances: [{instance_id, attempts: {"1": "resolved" | "unresolved" | "empty", ...}}]} as `patchloop eval` writes it';

/**
 * Reads every `attempts.json` among `files` (a scan of the served folder); for an instance two
 * files cover, the newer file wins. A broken file is a problem line naming it.
 */
export async function readAttemptGrades(files: FoundFile[]): Promise<AttemptGrades> {
  const out: AttemptGrades = { byId: new Map(), files: [], problems: [] };
  const found = files.filter((f) => f.rel.split("/").at(-1) === "attempts.json");
  for (const file of found.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    if (file.size > MAX_BYTES) {
      out.problems.push(`${file.rel}: ${file.size} bytes, more than the ${MAX_BYTES} the viewer reads`);
      continue;
    }
    let doc: unknown;
    try {
      doc = JSON.parse(await readFile(file.abs, "utf8"));
    } catch (err) {
      out.problems.push(`${file.rel}: not valid JSON (${(err as Error).message}); ${EXPECTED}`);
      continue;
    }
    const parsed = AttemptsJson.safeParse(doc);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join(".") || "(top level)";
      out.problems.push(`${file.rel}: ${where}: ${issue?.message ?? "unreadable"}; ${EXPECTED}`);
      continue;
    }
    for (const inst of parsed.data.instances) {
      const grades = new Map<number, AttemptGrade>();
      for (const [k, grade] of Object.entries(inst.attempts)) grades.set(Number(k), grade);
      out.byId.set(inst.instance_id, grades);
    }
    out.files.push(file.rel);
  }
  out.files.sort();
  return out;
}
