/** Browser code (see dom.ts): an instance's attempts side by side, and its selection's signals. */

import type {
  AttemptGrade,
  AttemptView,
  CandidateSignals,
  InstanceAttempts,
  ShownBy,
} from "../view/view-model.js";
import { badge, el, fmtCost, fmtNum, statusBadge } from "./dom.js";

/** The badge of an attempt's grade from attempts.json. */
export function gradeBadge(grade: AttemptGrade | null): HTMLElement {
  if (grade === null) return badge("not evaluated", "muted");
  if (grade === "empty") return badge("no patch", "muted");
  return grade === "resolved" ? badge("resolved", "ok") : badge("unresolved", "bad");
}

/** The mark of the attempt a row shows, saying why it is the one. */
export function shownMark(by: ShownBy): HTMLElement {
  const [text, title] =
    by === "selection"
      ? ["★ selected", "picked by patchloop select (selection.jsonl)"]
      : by === "standing"
        ? [
            "★ standing",
            "the attempt whose patch preds.json holds (run.json standing_attempt); no selection yet",
          ]
        : ["★ shown", "neither a selection nor run.json names an attempt; the first is shown"];
  return el("span", { class: "shown-mark", title }, text);
}

/** The selection's signals of one attempt, in words (one line each). */
export function signalLines(s: CandidateSignals): string[] {
  const lines: string[] = [];
  if (s.status !== "patch") lines.push(`dropped: ${s.status}${s.dropped ? ` (${s.dropped})` : ""}`);
  if (s.group !== null) lines.push(`group ${s.group}`);
  const r = s.regression;
  if (r && !r.tested) lines.push(`regression: not run${r.error ? ` (${r.error})` : ""}`);
  else if (r) {
    const broke = r.broke.length ? `broke ${r.broke.length} (${r.broke.join(", ")})` : "broke 0";
    const extra = r.timedOut ? ", timed out" : r.error ? ` (${r.error})` : "";
    lines.push(`regression: ${broke}, kept ${r.kept}${extra}`);
  }
  const p = s.reproduction;
  if (p) lines.push(`reproduction: ${p.passed}/${p.of} passed${p.error ? ` (${p.error})` : ""}`);
  if (s.judgeNumber !== null) lines.push(`judge: offered as #${s.judgeNumber}`);
  return lines;
}

/** One attempt as a small card: number (linking to its trajectory), status, numbers, grade, signals. */
export function attemptCard(a: AttemptView, by: ShownBy): HTMLElement {
  const title = a.trajectory
    ? el("a", { href: `#/t/${encodeURIComponent(a.trajectory)}` }, `attempt ${a.attempt}`)
    : el("span", null, `attempt ${a.attempt}`);
  const patch = a.patchChars === null ? "—" : a.patchChars === 0 ? "empty" : `${fmtNum(a.patchChars)} chars`;
  return el(
    "li",
    { class: a.shown ? "attempt shown" : "attempt", "data-attempt": String(a.attempt) },
    el("div", { class: "attempt-head" }, title, a.shown ? shownMark(by) : null),
    el("div", null, statusBadge(a.exitStatus), " ", gradeBadge(a.grade)),
    el("div", { class: "attempt-numbers" }, `${fmtNum(a.steps)} steps · ${fmtCost(a.cost)} · ${patch}`),
    a.signals
      ? el("ul", { class: "signals" }, ...signalLines(a.signals).map((t) => el("li", null, t)))
      : null,
    a.error ? el("div", { class: "error-text" }, a.error) : null,
  );
}

/** The selection panel: the reason, the judge's answer, the steps and problems (all as text). */
export function selectionPanel(x: InstanceAttempts): HTMLElement | null {
  const s = x.selection;
  if (!s) return null;
  const chosen = s.selectedAttempt === null ? "none selected" : `attempt ${s.selectedAttempt} selected`;
  const body: HTMLElement[] = [el("p", { class: "reason" }, s.reason)];
  if (s.judge) {
    const verdict = s.judge.problem
      ? `judge's answer not used: ${s.judge.problem}`
      : s.judge.chose !== null
        ? `judge chose attempt ${s.judge.chose}`
        : "judge chose no attempt";
    body.push(
      el("p", { class: "judge" }, verdict),
      el("pre", { class: "text judge-answer" }, s.judge.answer),
    );
  }
  if (s.steps.length)
    body.push(el("ol", { class: "selection-steps" }, ...s.steps.map((t) => el("li", null, t))));
  if (s.problems.length)
    body.push(el("ul", { class: "problems" }, ...s.problems.map((t) => el("li", null, t))));
  return el("details", { class: "selection" }, el("summary", null, `selection: ${chosen}`), ...body);
}

/** An instance's attempts side by side, with the total cost and the selection panel. */
export function attemptsBlock(x: InstanceAttempts): HTMLElement {
  return el(
    "div",
    { class: "attempts" },
    el("div", { class: "muted attempts-total" }, `${x.list.length} attempts, ${fmtCost(x.totalCost)} in all`),
    el("ol", { class: "attempt-list" }, ...x.list.map((a) => attemptCard(a, x.shownBy))),
    selectionPanel(x),
  );
}
