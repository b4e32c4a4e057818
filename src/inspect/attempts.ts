import type { AttemptGrades } from "./attempt-grades.js";
import type { RunFiles } from "./run-files.js";
import {
  attemptOfSource,
  type CandidateLine,
  type SelectionFile,
  type SelectionLine,
} from "./selection-file.js";
import type {
  AttemptView,
  CandidateSignals,
  InstanceAttempts,
  InstanceRow,
  SelectionView,
  ShownBy,
} from "./view/view-model.js";

/** What the overview keeps of a trajectory (not the whole view: a run may hold thousands). */
export type TrajectoryFacts = Pick<
  InstanceRow,
  "exitStatus" | "steps" | "prompt_tokens" | "completion_tokens" | "cost" | "wallSeconds" | "patchChars"
>;

/** An attempt's trajectory as the folder scan found it. */
export interface FoundAttempt {
  rel: string;
  facts: TrajectoryFacts | null;
  error: string | null;
}

/** `<id>/attempt-<k>/<id>.traj.json` (the layout of a batch with `run.attempts` above 1), else null. */
export function attemptOfPath(rel: string): { id: string; attempt: number } | null {
  const m = /^([^/]+)\/attempt-([1-9]\d{0,5})\/([^/]+)\.traj\.json$/.exec(rel);
  return m && m[1] === m[3] ? { id: m[1], attempt: Number(m[2]) } : null;
}

function signalsOf(c: CandidateLine, judge: SelectionLine["judge"]): CandidateSignals {
  const r = c.regression;
  return {
    status: c.status,
    dropped: c.dropped ?? null,
    group: c.group ?? null,
    regression: r
      ? {
          tested: r.tested,
          broke: r.broke,
          kept: r.kept,
          error: r.error ?? null,
          timedOut: r.timed_out ?? false,
        }
      : null,
    reproduction: c.reproduction
      ? { passed: c.reproduction.passed, of: c.reproduction.of, error: c.reproduction.error ?? null }
      : null,
    judgeNumber: judge?.offered.find((o) => o.candidate === c.index)?.number ?? null,
  };
}

/** The attempt a candidate index stands for, through its `source`; null when it names no attempt. */
function attemptOfCandidate(line: SelectionLine, index: number): number | null {
  const c = line.candidates.find((x) => x.index === index);
  return c ? attemptOfSource(c.source) : null;
}

function selectionView(line: SelectionLine, problems: string[]): SelectionView {
  let selectedAttempt: number | null = null;
  if (line.selected !== null) {
    selectedAttempt = attemptOfCandidate(line, line.selected);
    if (selectedAttempt === null) {
      const source = line.candidates.find((c) => c.index === line.selected)?.source;
      problems.push(
        `selection.jsonl: ${line.instance_id}: the selected candidate ${line.selected} ` +
          (source === undefined
            ? "is not among its candidates"
            : `comes from ${JSON.stringify(source)}, not an attempt-<k> folder`) +
          "; the row shows the standing attempt instead",
      );
    }
  }
  const judge = line.judge
    ? {
        answer: line.judge.answer,
        chose: line.judge.chose === undefined ? null : attemptOfCandidate(line, line.judge.chose),
        problem: line.judge.problem ?? null,
      }
    : null;
  return { selectedAttempt, reason: line.reason, steps: line.steps, judge, problems: line.problems };
}

/**
 * The attempts of instance `id`: its attempt trajectories (`found`, by attempt number) and the
 * attempts only run.json knows, with their grades (attempts.json) and selection signals. The row
 * shows selection.jsonl's selected attempt, else run.json's standing attempt, else attempt 1 (the
 * lowest found). A selection or standing attempt naming an attempt not found is a problem line.
 */
export function instanceAttempts(
  id: string,
  found: Map<number, FoundAttempt>,
  run: RunFiles,
  selection: SelectionFile,
  grades: AttemptGrades,
  problems: string[],
): InstanceAttempts {
  const records = run.attemptRecords.get(id) ?? new Map();
  const ks = [...new Set([...found.keys(), ...records.keys()])].sort((a, b) => a - b);
  const line = selection.byId.get(id);
  const sel = line ? selectionView(line, problems) : null;
  const standing = run.standingAttempts.get(id);
  let shown = ks[0] ?? 1;
  let shownBy: ShownBy = "first";
  if (sel?.selectedAttempt != null && ks.includes(sel.selectedAttempt)) {
    shown = sel.selectedAttempt;
    shownBy = "selection";
  } else if (standing !== undefined && ks.includes(standing)) {
    shown = standing;
    shownBy = "standing";
  }
  if (sel?.selectedAttempt != null && !ks.includes(sel.selectedAttempt))
    problems.push(
      `selection.jsonl: ${id}: selects attempt ${sel.selectedAttempt}, which this folder does not hold`,
    );
  if (standing !== undefined && !ks.includes(standing))
    problems.push(
      `run.json: ${id}: standing_attempt ${standing} is not among its attempts (${ks.join(", ")})`,
    );
  const byAttempt = new Map<number, CandidateLine>();
  for (const c of line?.candidates ?? []) {
    const k = attemptOfSource(c.source);
    if (k !== null) byAttempt.set(k, c);
  }
  const list = ks.map((k): AttemptView => {
    const f = found.get(k);
    const rec = records.get(k);
    const c = byAttempt.get(k);
    return {
      attempt: k,
      trajectory: f?.rel ?? null,
      exitStatus: f?.facts?.exitStatus ?? rec?.exitStatus ?? null,
      steps: f?.facts?.steps ?? null,
      prompt_tokens: f?.facts?.prompt_tokens ?? null,
      completion_tokens: f?.facts?.completion_tokens ?? null,
      cost: f?.facts?.cost ?? rec?.cost ?? null,
      wallSeconds: f?.facts?.wallSeconds ?? null,
      patchChars: f?.facts?.patchChars ?? null,
      grade: grades.byId.get(id)?.get(k) ?? null,
      shown: k === shown,
      signals: c && line ? signalsOf(c, line.judge) : null,
      error: f ? f.error : "no trajectory file (only run.json records this attempt)",
    };
  });
  const costs = list.map((a) => a.cost).filter((c): c is number => c !== null);
  return {
    list,
    shown,
    shownBy,
    selection: sel,
    totalCost: costs.length ? costs.reduce((s, c) => s + c, 0) : null,
  };
}
