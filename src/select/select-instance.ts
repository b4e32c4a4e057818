import { createHash } from "node:crypto";
import type { Model } from "../models/types.js";
import type { Candidate } from "./candidates.js";
import { type Execution, type ExecutionContext, execute, type Unit } from "./execution.js";
import { askJudge, type JudgeRecord } from "./judge.js";
import { type Normalized, normalizePatch } from "./normalize.js";
import type { CandidateRecord, SelectionRecord } from "./record.js";
import { breakTie, type VoteGroup, type VoteInput, vote } from "./vote.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** What selecting one instance needs besides its candidates. */
export interface InstanceContext extends Omit<ExecutionContext, "reproducer"> {
  judge?: Model;
  reproducer?: Model;
  /** Where the instance's candidates could not all be read (recorded, not fatal). */
  problems: string[];
}

/** Units (distinct patches) of the usable candidates, and the first unit of each text key, most common first. */
function unitsOf(cands: Candidate[], norms: Normalized[]): { units: Unit[]; groups: Unit[] } {
  const bySha = new Map<string, Unit>();
  const perText = new Map<string, { unit: Unit; count: number }>();
  cands.forEach((c, i) => {
    const n = norms[i];
    if (n.kind !== "patch" || typeof c.patch !== "string") return;
    const s = sha(c.patch);
    const unit = bySha.get(s) ?? { sha: s, patch: c.patch, textKey: n.textKey, files: n.files };
    bySha.set(s, unit);
    const t = perText.get(n.textKey);
    if (t) t.count++;
    else perText.set(n.textKey, { unit, count: 1 });
  });
  const groups = [...perText.values()].sort((a, b) => b.count - a.count).map((t) => t.unit);
  return { units: [...bySha.values()], groups };
}

function candidateRecord(c: Candidate, i: number, n: Normalized, ex: Execution | undefined): CandidateRecord {
  const attempt = /^attempt-(\d+)$/.exec(c.source);
  const rec: CandidateRecord = {
    index: i,
    source: c.source,
    ...(attempt ? { attempt: Number(attempt[1]) } : {}),
    ...(c.exitStatus !== undefined ? { exit_status: c.exitStatus } : {}),
    ...(c.modelName ? { model_name: c.modelName } : {}),
    patch_sha256: typeof c.patch === "string" && c.patch !== "" ? sha(c.patch) : null,
    status: n.kind === "patch" ? "patch" : n.kind,
  };
  if (n.kind !== "patch") {
    rec.dropped = n.reason;
    return rec;
  }
  rec.size = n.size;
  rec.files = n.files;
  rec.text_key = n.textKey;
  const applied = ex?.applies.get(sha(c.patch as string));
  if (applied && !applied.applies) {
    rec.status = "does_not_apply";
    rec.dropped = `the patch does not apply at the base commit (${applied.reasons.join("; ")})`;
  }
  if (applied?.astKey) rec.ast_key = applied.astKey;
  const reg = ex?.regressionOf.get(n.textKey);
  if (reg) rec.regression = reg;
  const rep = ex?.reproductionOf.get(n.textKey);
  if (rep) rec.reproduction = rep;
  const exm = ex?.examplesOf.get(n.textKey);
  if (exm) rec.examples = exm;
  return rec;
}

/**
 * What the candidate's tests showed, as one key (candidates with equal keys are one group): the
 * tests it breaks with the reproduction tests it passes, when a reproduction test was kept, and
 * with what the examples printed, when it changes what one of them prints. A candidate
 * that changes no example prints what the base commit printed, which says nothing of its fix.
 */
function behaviourKey(rec: CandidateRecord, reproKept: boolean): string | undefined {
  const broke = rec.regression?.broke ?? [];
  const parts: unknown[] = [];
  const rep = rec.reproduction;
  if (reproKept && rep && !rep.error) parts.push(["reproduction", rep.passed]);
  const exm = rec.examples;
  if (exm?.outputs_sha256 && exm.changed && exm.changed.length > 0)
    parts.push(["examples", exm.outputs_sha256]);
  return parts.length > 0 ? JSON.stringify([broke, ...parts]) : undefined;
}

function voteInput(rec: CandidateRecord, ex: Execution | undefined): VoteInput {
  const reg = rec.regression;
  const kept = ex?.reproduction?.kept === true;
  const rep = rec.reproduction;
  return {
    index: rec.index,
    usable: rec.status === "patch" || rec.status === "does_not_apply",
    applies: rec.status === "does_not_apply" ? false : ex?.applies.has(rec.patch_sha256 ?? "") ? true : null,
    textKey: rec.text_key,
    astKey: rec.ast_key,
    broke: reg?.tested && !ex?.regression?.skipped ? reg.broke.length : null,
    ...(reg?.expected_to_change ? { expectedBroke: reg.expected_to_change.length } : {}),
    reproPassed: kept && rep ? rep.passed : null,
    examplesChanged: rec.examples?.changed ? rec.examples.changed.length > 0 : null,
    examplesStated: rec.examples?.stated ? rec.examples.stated.length > 0 : null,
    behaviour: behaviourKey(rec, kept),
    size: rec.size ?? 0,
    ...(rec.files ? { files: rec.files } : {}),
  };
}

/**
 * Selects one instance's patch (docs/selection.md): normalize, then (when more than one distinct
 * usable patch is left) apply, regression and reproduction tests in the instance's environment,
 * vote, the judge for a tie, the deterministic rule. Never rejects for a bad candidate, a hung
 * test or an environment that does not open: each is recorded and the rest goes on.
 */
export async function selectInstance(
  instanceId: string,
  cands: Candidate[],
  ctx: InstanceContext,
): Promise<SelectionRecord> {
  const started = Date.now();
  const problems = [...ctx.problems];
  const norms = cands.map((c) => normalizePatch(typeof c.patch === "string" ? c.patch : null));
  const { units, groups } = unitsOf(cands, norms);
  let ex: Execution | undefined;
  let untested: string | undefined;
  const steps: string[] = [];
  if (cands.length > 1 && groups.length > 1) {
    try {
      ex = await execute(units, groups, ctx);
      untested = ex.untested;
    } catch (err) {
      untested = `the candidates could not be run in the instance's environment: ${(err as Error).message}`;
      problems.push(`${untested}; selected without tests`);
    }
  } else if (groups.length === 1 && cands.length > 1) {
    steps.push("every usable candidate normalizes to the same patch: no tests needed");
  }
  const records = cands.map((c, i) => candidateRecord(c, i, norms[i], ex));
  for (const r of records) {
    const unread = ex?.applies.get(r.patch_sha256 ?? "")?.unread ?? [];
    for (const why of unread) problems.push(`${r.source}: ${why}; its patch has no syntax-tree key`);
  }
  const result = vote(records.map((r) => voteInput(r, ex)));
  steps.push(...result.steps);
  for (const g of result.groups) for (const m of g.members) records[m].group = g.id;
  const base = {
    instance_id: instanceId,
    candidates: records,
    groups: result.groups.map((g) => ({ group: g.id, members: g.members, representative: g.representative })),
    ...(ex?.regression
      ? {
          regression: {
            files: ex.regression.files,
            passing_at_base: ex.regression.passingAtBase,
            ...(ex.regression.left ? { left_out: ex.regression.left } : {}),
            ...(ex.regression.skipped ? { skipped: ex.regression.skipped } : {}),
          },
        }
      : {}),
    ...(ex?.reproduction ? { reproduction: ex.reproduction } : {}),
    ...(ex?.examples ? { examples: ex.examples } : {}),
    steps,
    problems,
    ...(untested ? { untested } : {}),
  };
  const done = (selected: number | null, reason: string, judge?: JudgeRecord): SelectionRecord => ({
    ...base,
    ...(judge ? { judge } : {}),
    selected,
    selected_source: selected === null ? null : cands[selected].source,
    reason,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  });
  if (cands.length === 1)
    return done(
      result.top.length ? 0 : null,
      result.top.length ? "single candidate" : `single candidate, not usable: ${records[0].dropped}`,
    );
  if (result.top.length === 0) {
    const why = records.map((r) => `${r.source}: ${r.dropped ?? "dropped"}`).join("; ");
    return done(null, `no usable candidate (${why || "none given"})`);
  }
  const alive = new Set(result.survivors);
  const members = (g: VoteGroup) => g.members.filter((m) => alive.has(m)).length;
  if (result.top.length === 1) {
    const g = result.top[0];
    const n = members(g);
    return done(
      g.representative,
      result.groups.length === 1
        ? `all ${n} surviving candidates are equivalent (group ${g.id}); its smallest patch`
        : `largest group: ${n} of ${result.survivors.length} surviving candidates (group ${g.id}); its smallest patch`,
    );
  }
  const tied = result.top.map((g) => g.id).join(", ");
  const size = members(result.top[0]);
  let judge: JudgeRecord | undefined;
  if (ctx.judge) {
    judge = await askJudge(
      ctx.judge,
      ctx.config.judge.template,
      String(ctx.row.problem_statement ?? ""),
      result.top.map((g) => ({
        candidate: g.representative,
        patch: cands[g.representative].patch as string,
      })),
      ctx.signal,
    );
    if (judge.chose !== undefined) {
      return done(
        judge.chose,
        `tie between groups ${tied} (${size} each): the judge chose group ${records[judge.chose].group}`,
        judge,
      );
    }
  }
  const g = breakTie(result.top);
  const why = judge ? `the judge's answer was not used (${judge.problem}); ` : "";
  return done(
    g.representative,
    `tie between groups ${tied} (${size} each): ${why}rule: the most candidates changing its files (${g.sharedFiles}), then the fewest changed lines, then the earliest candidate: group ${g.id}`,
    judge,
  );
}
