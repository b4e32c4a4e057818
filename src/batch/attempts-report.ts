import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type EvaluateOptions, type EvaluationRun, evaluatePredictions } from "../grading/evaluate.js";
import type { Prediction } from "../grading/predictions.js";
import { predOf } from "../run-folder/preds-file.js";
import { attemptNumbers, readPriorState } from "../run-folder/resume.js";
import { parseSelectionJsonl } from "../select/selection-file.js";
import { writeFileAtomic } from "../util/atomic-write.js";

/** One attempt's patch and what it cost, as its trajectory has them. */
export interface AttemptCandidate {
  instance_id: string;
  attempt: number;
  patch: string;
  cost: number;
  tokens: number;
}

/** How one attempt graded: its patch resolved the instance or not, or it had no patch. */
export type AttemptGrade = "resolved" | "unresolved" | "empty";

/** `eval` of a run folder with attempts (docs/attempts.md): per instance and in total. */
export interface AttemptsReport {
  instances: Array<{
    instance_id: string;
    /** Grade per attempt, by attempt number. */
    attempts: Record<string, AttemptGrade>;
    first_resolved: boolean;
    any_resolved: boolean;
    /** What preds.json holds resolves (the selected patch, or the standing attempt's without a selection). */
    selected_resolved: boolean;
    /** How preds.json's patch was chosen: by a selection (selection.jsonl), or the standing attempt. */
    preds: "selected" | "standing";
    /** The first attempt whose patch preds.json holds; null when none (an instance with no patch). */
    preds_attempt: number | null;
    cost: number;
    tokens: number;
  }>;
  total: {
    instances: number;
    first_attempt_resolved: number;
    /** The oracle: instances some attempt resolves. */
    any_attempt_resolved: number;
    /** What preds.json (the standing or selected patch) resolves. */
    selected_resolved: number;
    /** Instances whose preds.json patch a selection chose (the others hold their standing attempt). */
    selected: number;
    cost: number;
    tokens: number;
    /** null when nothing was resolved. */
    cost_per_resolved: number | null;
    tokens_per_resolved: number | null;
  };
}

/** The attempts a run folder holds for `ids` (`DIR/<id>/attempt-<k>/`), in attempt order; empty without any. */
export async function readAttempts(dir: string, ids: string[]): Promise<Map<string, AttemptCandidate[]>> {
  const out = new Map<string, AttemptCandidate[]>();
  for (const id of ids) {
    const found: AttemptCandidate[] = [];
    for (const k of attemptNumbers(dir, id)) {
      const p = await readPriorState(dir, id, k);
      if (p.status === null) continue;
      const tokens = p.stats.prompt_tokens + p.stats.completion_tokens;
      found.push({ instance_id: id, attempt: k, patch: p.submission, cost: p.stats.cost, tokens });
    }
    if (found.length > 0) out.set(id, found);
  }
  return out;
}

/**
 * Grades every attempt's patch (each distinct patch of an instance once: `grade` gets one
 * prediction list per attempt number, without the patches an earlier attempt of the same instance
 * already had) and reports first-attempt, any-attempt (oracle) and selected resolution, with the
 * cost and tokens per resolved instance. Writes `reportPath`.
 */
export async function gradeAttempts(o: {
  attempts: Map<string, AttemptCandidate[]>;
  /** The graded preds.json of the folder (the standing or selected patch of each instance). */
  selected: EvaluationRun;
  /** preds.json's patch of each instance. */
  preds?: Map<string, string>;
  /** Instances a selection chose a patch for (selection.jsonl); the others hold their standing attempt. */
  chosenBySelection?: ReadonlySet<string>;
  modelName: string;
  grade: (predictions: Prediction[], attempt: number) => Promise<EvaluationRun>;
  reportPath: string;
}): Promise<AttemptsReport> {
  const byAttempt = new Map<number, Prediction[]>();
  const firstWith = new Map<string, number>(); // `${id}\0${patch}` -> the attempt that grades it
  for (const [id, list] of o.attempts)
    for (const a of list) {
      if (a.patch.trim() === "") continue;
      const key = `${id}\0${a.patch}`;
      if (firstWith.has(key)) continue;
      firstWith.set(key, a.attempt);
      const preds = byAttempt.get(a.attempt) ?? [];
      preds.push(predOf({ instance_id: id, patch: a.patch }, o.modelName));
      byAttempt.set(a.attempt, preds);
    }
  const resolved = new Set<string>(); // `${id}\0${attempt}` of resolved gradings
  for (const [k, preds] of [...byAttempt].sort((a, b) => a[0] - b[0])) {
    const run = await o.grade(preds, k);
    for (const r of run.results) if (r.outcome === "resolved") resolved.add(`${r.instance_id}\0${k}`);
  }
  const selected = new Set(
    o.selected.results.filter((r) => r.outcome === "resolved").map((r) => r.instance_id),
  );
  const instances: AttemptsReport["instances"] = [];
  for (const [id, list] of o.attempts) {
    const grades: Record<string, AttemptGrade> = {};
    for (const a of list) {
      const k = firstWith.get(`${id}\0${a.patch}`);
      grades[String(a.attempt)] =
        a.patch.trim() === "" ? "empty" : resolved.has(`${id}\0${k}`) ? "resolved" : "unresolved";
    }
    const first = list.find((a) => a.attempt === 1);
    const held = o.preds?.get(id);
    const inPreds = held === undefined || held.trim() === "" ? undefined : list.find((a) => a.patch === held);
    instances.push({
      instance_id: id,
      attempts: grades,
      first_resolved: first ? grades["1"] === "resolved" : false,
      any_resolved: Object.values(grades).includes("resolved"),
      selected_resolved: selected.has(id),
      preds: o.chosenBySelection?.has(id) ? "selected" : "standing",
      preds_attempt: inPreds?.attempt ?? null,
      cost: list.reduce((s, a) => s + a.cost, 0),
      tokens: list.reduce((s, a) => s + a.tokens, 0),
    });
  }
  const count = (f: (i: AttemptsReport["instances"][number]) => boolean) => instances.filter(f).length;
  const cost = instances.reduce((s, i) => s + i.cost, 0);
  const tokens = instances.reduce((s, i) => s + i.tokens, 0);
  const sel = count((i) => i.selected_resolved);
  const report: AttemptsReport = {
    instances,
    total: {
      instances: instances.length,
      first_attempt_resolved: count((i) => i.first_resolved),
      any_attempt_resolved: count((i) => i.any_resolved),
      selected_resolved: sel,
      selected: count((i) => i.preds === "selected"),
      cost,
      tokens,
      cost_per_resolved: sel > 0 ? cost / sel : null,
      tokens_per_resolved: sel > 0 ? Math.round(tokens / sel) : null,
    },
  };
  await writeFileAtomic(o.reportPath, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

/**
 * The attempts report as text: one line per instance (its attempts' grades, then what preds.json
 * holds: `selected` only where a selection chose it, else `standing`, with the attempt), then the
 * totals.
 */
export function formatAttemptsReport(r: AttemptsReport): string {
  const mark = (g: AttemptGrade) => (g === "resolved" ? "R" : g === "empty" ? "-" : ".");
  const lines = r.instances.map((i) => {
    const ks = Object.keys(i.attempts).sort((a, b) => Number(a) - Number(b));
    const row = ks.map((k) => `${k}:${mark(i.attempts[k])}`).join(" ");
    const which = i.preds_attempt === null ? "" : ` (attempt ${i.preds_attempt})`;
    return `  ${i.instance_id}  ${row}  ${i.preds}${which} ${i.selected_resolved ? "resolved" : "unresolved"}`;
  });
  const t = r.total;
  const pct = (n: number) => (t.instances ? `${((100 * n) / t.instances).toFixed(1)}%` : "-");
  // "selected" only when a selection chose every instance's patch; none: the standing attempts
  const label =
    t.selected === t.instances
      ? "selected"
      : t.selected === 0
        ? "standing"
        : "preds.json (selected or standing)";
  return [
    "attempts (R resolved, . unresolved, - no patch):",
    ...lines,
    `first attempt resolved ${t.first_attempt_resolved}/${t.instances} (${pct(t.first_attempt_resolved)})  ` +
      `any attempt ${t.any_attempt_resolved} (${pct(t.any_attempt_resolved)})  ` +
      `${label} ${t.selected_resolved} (${pct(t.selected_resolved)})`,
    `cost $${t.cost.toFixed(4)}, ${t.tokens} tokens; per resolved instance: ` +
      (t.cost_per_resolved === null
        ? "none resolved"
        : `$${t.cost_per_resolved.toFixed(4)}, ${t.tokens_per_resolved} tokens`),
    "",
  ].join("\n");
}

/** The instances a selection chose a patch for, from the folder's selection.jsonl (none without one). */
export function selectedIds(dir: string): Set<string> {
  const path = join(dir, "selection.jsonl");
  const out = new Set<string>();
  if (!existsSync(path)) return out;
  // a line cut short by a killed writer (or otherwise not a selection line) chose nothing
  for (const [id, line] of parseSelectionJsonl(readFileSync(path, "utf8")).byId)
    if (line.selected !== null) out.add(id);
  return out;
}

/**
 * The console line before an attempt's grading: its progress lines count from 1 again, so the
 * line says what they count.
 */
export function attemptsHeader(attempt: number, patches: number): string {
  const what = `${patches} patch${patches === 1 ? "" : "es"}`;
  return `grading attempt ${attempt}: ${what} (a patch equal to one already graded for its instance is not graded again)...\n`;
}

/**
 * `eval` of a run folder: when it holds attempts, grades them (in runs `<runId>-attempt-<k>` beside
 * the folder's own, with the same options) and writes `<outputDir>/<runId>/attempts.json`; null
 * when the folder has no attempts.
 */
export async function evaluateAttempts(
  dir: string,
  selected: EvaluationRun,
  options: EvaluateOptions,
  /** Told before each attempt's patches are graded (the console's header line, attemptsHeader). */
  announce?: (attempt: number, patches: number) => void,
): Promise<AttemptsReport | null> {
  const ids = options.instanceIds ?? options.predictions.map((p) => p.instance_id);
  const attempts = await readAttempts(dir, ids);
  if (attempts.size === 0) return null;
  const modelName = options.predictions[0]?.model_name_or_path ?? "patchloop";
  const onResult = options.onResult;
  return gradeAttempts({
    attempts,
    selected,
    modelName,
    preds: new Map(options.predictions.map((p) => [p.instance_id, p.model_patch ?? ""])),
    chosenBySelection: selectedIds(dir),
    grade: (predictions, k) => {
      announce?.(k, predictions.length);
      return evaluatePredictions({
        ...options,
        predictions,
        runId: `${options.runId}-attempt-${k}`,
        instanceIds: predictions.map((p) => p.instance_id),
        scope: { kind: "selection", description: `attempt ${k}'s distinct patches` },
        // each line names the attempt it grades
        ...(onResult
          ? {
              onResult: (r, done, total) =>
                onResult({ ...r, instance_id: `${r.instance_id} attempt ${k}` }, done, total),
            }
          : {}),
      });
    },
    reportPath: join(options.outputDir, options.runId, "attempts.json"),
  });
}
