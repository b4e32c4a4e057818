import { plural } from "../util/plural.js";
import type { CompareResult, PairComparison } from "./compare-runs.js";
import { formatP } from "./compare-runs.js";

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pts = (x: number) => `${x > 0 ? "+" : ""}${(100 * x).toFixed(1)}`;
const ci = (c: [number, number]) => `${pts(c[0])} to ${pts(c[1])}`;

function idList(title: string, ids: string[]): string[] {
  if (ids.length === 0) return [`${title}: none`];
  return [`${title} (${ids.length}):`, ...ids.map((id) => `  ${id}`)];
}

function pairLines(p: PairComparison, level: number): string[] {
  const lines = [
    `## ${p.a} vs ${p.b}`,
    "",
    p.sentence,
    "",
    `| run | resolved | rate |`,
    `| --- | ---: | ---: |`,
    `| ${p.a} | ${p.a_resolved} / ${p.instances} | ${pct(p.a_rate)} |`,
    `| ${p.b} | ${p.b_resolved} / ${p.instances} | ${pct(p.b_rate)} |`,
    "",
    `difference (${p.b} - ${p.a}): ${pts(p.difference)} points; ${Math.round(level * 100)}% paired bootstrap interval ${ci(p.difference_ci)}; exact McNemar p ${formatP(p.mcnemar_p)} (${p.only_a.length} vs ${p.only_b.length} discordant)`,
    "",
    ...idList(`resolved by ${p.a} only`, p.only_a),
    ...idList(`resolved by ${p.b} only`, p.only_b),
    "",
    "Per repository:",
    "",
    `| repository | instances | ${p.a} | ${p.b} | difference | interval | p |`,
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...p.per_repository.map(
      (r) =>
        `| ${r.repository} | ${r.instances} | ${r.a_resolved} | ${r.b_resolved} | ${pts(r.difference)} | ${ci(r.difference_ci)} | ${formatP(r.mcnemar_p).replace("= ", "")} |`,
    ),
    "",
  ];
  return lines;
}

/** `compare`'s text output (Markdown): the runs, what was set apart, each pair, stability. */
export function renderComparison(r: CompareResult): string {
  const lines = [
    "# Comparison of runs",
    "",
    `${plural(r.instances, "instance")} compared (${r.missing === "exclude" ? "instances a run lacks or could not grade are left out" : "instances a run lacks or could not grade count as unresolved"}); bootstrap: ${r.bootstrap.resamples} resamples, seed ${r.bootstrap.seed}.`,
    "",
    "| run | source | read as | resolved | rate |",
    "| --- | --- | --- | ---: | ---: |",
    ...r.runs.map((x) => `| ${x.name} | ${x.source} | ${x.kind} | ${x.resolved} | ${pct(x.rate)} |`),
    "",
  ];
  for (const x of r.runs) for (const n of x.notes) lines.push(`note (${x.name}): ${n}`);
  if (r.runs.some((x) => x.notes.length)) lines.push("");
  if (r.set_apart.total > 0) {
    lines.push(`Set apart, not tested (${r.set_apart.total}):`);
    for (const [name, ids] of Object.entries(r.set_apart.missing))
      lines.push(`  ${name} lacks ${ids.length}: ${ids.join(", ")}`);
    for (const [name, map] of Object.entries(r.set_apart.infrastructure)) {
      lines.push(`  ${name}: infrastructure failures (${Object.keys(map).length}):`);
      for (const [id, why] of Object.entries(map)) lines.push(`    ${id}: ${why}`);
    }
    lines.push("  (--missing unresolved counts them as unresolved instead)", "");
  }
  if (r.stability) {
    const s = r.stability;
    lines.push(
      `## Stability over ${s.runs} runs`,
      "",
      `always resolved ${s.always_resolved}, never ${s.never_resolved}, unstable ${s.unstable}`,
      `rate: mean ${pct(s.mean_rate)}, standard deviation ${(100 * s.sd_rate).toFixed(1)} points; majority vote ${pct(s.majority_rate)}; any run ${pct(s.any_rate)}`,
      "",
      ...idList("unstable", s.unstable_ids),
      "",
      "| A | B | A resolved | B resolved | difference | interval | p |",
      "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
      ...r.pairs.map(
        (p) =>
          `| ${p.a} | ${p.b} | ${p.a_resolved} | ${p.b_resolved} | ${pts(p.difference)} | ${ci(p.difference_ci)} | ${formatP(p.mcnemar_p).replace("= ", "")} |`,
      ),
      "",
    );
  }
  for (const p of r.pairs) lines.push(...pairLines(p, r.bootstrap.level));
  return `${lines.join("\n").trimEnd()}\n`;
}
