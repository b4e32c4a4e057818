/** Browser code (see dom.ts): the run report's tables (`patchloop report`, docs/report.md) on the overview. */
import type { RunReport } from "../../report/build.js";
import { leaderboardLines } from "../../report/leaderboard-text.js";
import { el } from "./dom.js";

// The page script is built from this module's exports (assets/page.ts): the report's sentences go with it.
export { leaderboardLines };

/** A rate as the report writes it (`33.3%`). */
export function reportPct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** A small table: a header row and body rows of text cells. */
export function reportTable(head: string[], rows: string[][]): HTMLElement {
  return el(
    "table",
    { class: "report-table" },
    el("thead", null, el("tr", null, ...head.map((h) => el("th", null, h)))),
    el("tbody", null, ...rows.map((r) => el("tr", null, ...r.map((c) => el("td", null, c))))),
  );
}

/** The report's sections: resolved (per repository, per difficulty), where each instance ended, files. */
export function renderReportPanel(r: RunReport): HTMLElement {
  const tallies = (list: Array<{ name: string; instances: number; resolved: number; rate: number }>) =>
    reportTable(
      ["", "instances", "resolved", "rate"],
      list.map((x) => [x.name, String(x.instances), String(x.resolved), reportPct(x.rate)]),
    );
  const section = el(
    "section",
    { id: "run-report", class: "run-report" },
    el("h2", null, "Run report"),
    el(
      "p",
      { class: "report-headline" },
      `${r.resolved} of ${r.instances} resolved (${reportPct(r.resolved_rate)}); ${r.graded} graded`,
    ),
    el("h3", null, "Per repository"),
    tallies(r.per_repository.map((x) => ({ ...x, name: x.repository }))),
  );
  if (r.per_difficulty) {
    section.append(
      el("h3", null, "Per difficulty"),
      tallies(r.per_difficulty.map((x) => ({ ...x, name: x.difficulty }))),
    );
  }
  section.append(
    el("h3", null, "Where each instance ended"),
    reportTable(
      ["", "where it ended", "instances", "ids"],
      r.outcomes.map((o) => [
        o.group,
        o.label,
        String(o.count),
        o.category === "resolved" ? "" : o.ids.join(", "),
      ]),
    ),
  );
  if (r.files) {
    section.append(
      el("h3", null, "Files the patch touched beside the gold patch's"),
      el("p", null, r.files.note),
      reportTable(
        ["instance", "ended", "patch's files", "gold patch's files"],
        r.files.per_instance.map((i) => [
          i.instance_id,
          i.category,
          i.patch_files.join(", "),
          i.gold_files.join(", "),
        ]),
      ),
    );
  }
  if (r.leaderboard)
    section.append(
      el("h3", null, "Against the public leaderboard"),
      ...leaderboardLines(r.leaderboard).map((line) => el("p", { class: "report-leaderboard" }, line)),
    );
  return section;
}
