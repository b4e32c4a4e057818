import type { Measure, RunReport, Tally } from "./build.js";
import { MEASURES } from "./build.js";
import type { AttemptsTotals } from "./collect.js";
import type { Distribution } from "./distribution.js";
import { leaderboardLines } from "./leaderboard-text.js";

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

const MEASURE_WORDS: Record<Measure, string> = {
  steps: "steps (model calls)",
  prompt_tokens: "prompt tokens",
  completion_tokens: "completion tokens",
  seconds: "seconds",
  cost: "cost (USD)",
};

function fmt(m: Measure, x: number): string {
  if (m === "cost") return x.toFixed(4);
  if (m === "seconds") return x.toFixed(1);
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

function tallyRows(rows: Array<Tally & { name: string }>): string[] {
  return [
    "| | instances | resolved | rate |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map((r) => `| ${r.name} | ${r.instances} | ${r.resolved} | ${pct(r.rate)} |`),
  ];
}

function spreadRows(title: string, d: Record<Measure, Distribution>): string[] {
  return [
    `${title}:`,
    "",
    "| measure | n | total | mean | median | p90 | max |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...MEASURES.filter((m) => d[m].n > 0).map(
      (m) =>
        `| ${MEASURE_WORDS[m]} | ${d[m].n} | ${fmt(m, d[m].total)} | ${fmt(m, d[m].mean)} | ${fmt(m, d[m].median)} | ${fmt(m, d[m].p90)} | ${fmt(m, d[m].max)} |`,
    ),
    "",
  ];
}

/** `report`'s Markdown. */
/**
 * What preds.json holds, named as eval names it: `selected` only when a selection chose every
 * instance's patch, `standing` when none did (the standing attempts).
 */
function predsLabel(a: AttemptsTotals): string {
  if (a.selected === null || a.selected === a.instances) return "selected";
  return a.selected === 0 ? "standing" : "preds.json (selected or standing)";
}

export function renderReport(r: RunReport): string {
  const lines = [`# Run report: ${r.dir}`, ""];
  const dataset = r.dataset.name
    ? `${r.dataset.name}${r.dataset.split ? `, ${r.dataset.split}` : ""}`
    : "none recorded";
  lines.push(
    `Dataset: ${dataset}. Evaluation: ${r.eval_summary ?? "none (grade with `patchloop eval DIR`)"}.`,
  );
  if (r.eval_scope) lines.push(`The evaluation counts ${r.eval_scope}.`);
  if (r.dataset.note) lines.push(`Note: ${r.dataset.note}.`);
  for (const n of r.notes) lines.push(`Note: ${n}.`);
  lines.push(
    "",
    "## Resolved",
    "",
    `**${r.resolved} of ${r.instances} instances resolved (${pct(r.resolved_rate)})**; ${r.graded} graded.`,
    "",
    "Per repository:",
    "",
    ...tallyRows(r.per_repository.map((x) => ({ ...x, name: x.repository }))),
    "",
  );
  if (r.per_difficulty)
    lines.push(
      "Per difficulty:",
      "",
      ...tallyRows(r.per_difficulty.map((x) => ({ ...x, name: x.difficulty }))),
      "",
    );
  else lines.push("The dataset has no difficulty label.", "");
  lines.push(
    "## Where each instance ended",
    "",
    "| | where it ended | instances | what to do |",
    "| --- | --- | ---: | --- |",
    ...r.outcomes.map((o) => `| ${o.group} | ${o.label} | ${o.count} | ${o.action} |`),
    "",
  );
  for (const o of r.outcomes) if (o.category !== "resolved") lines.push(`- ${o.label}: ${o.ids.join(", ")}`);
  lines.push("");
  if (r.files) {
    const f = r.files;
    lines.push(
      "## Files the patch touched beside the gold patch's",
      "",
      f.note,
      "",
      `Of ${f.compared} graded patches: ${f.all_gold_files} touched every file the gold patch touched, ${f.some_gold_files} some of them, ${f.no_gold_file} none.`,
      "",
      "| instance | ended | patch's files | gold patch's files |",
      "| --- | --- | --- | --- |",
      ...f.per_instance.map(
        (i) =>
          `| ${i.instance_id} | ${i.category} | ${i.patch_files.join(", ")} | ${i.gold_files.join(", ")} |`,
      ),
      "",
    );
  }
  lines.push(
    "## Steps, tokens, time and cost",
    "",
    ...spreadRows("Every instance", r.usage.all),
    ...(r.resolved ? spreadRows("Resolved instances", r.usage.resolved) : []),
  );
  if (r.usage.per_resolved) {
    const p = r.usage.per_resolved;
    lines.push(
      `Per resolved instance (totals over every instance / ${r.resolved}): ${MEASURES.filter(
        (m) => r.usage.all[m].n > 0,
      )
        .map((m) => `${fmt(m, p[m])} ${MEASURE_WORDS[m]}`)
        .join(", ")}.`,
      "",
    );
  }
  if (r.attempts) {
    const a = r.attempts;
    const of = (n: number) => `${n} (${pct(a.instances ? n / a.instances : 0)})`;
    lines.push(
      "## Attempts",
      "",
      `Of ${a.instances} instances: first attempt resolved ${of(a.first_attempt_resolved)}, any attempt ${of(a.any_attempt_resolved)}, ${predsLabel(a)} ${of(a.selected_resolved)}.`,
      "",
    );
  }
  if (r.leaderboard)
    lines.push("## Against the public leaderboard", "", ...leaderboardLines(r.leaderboard), "");
  return `${lines.join("\n").trimEnd()}\n`;
}
