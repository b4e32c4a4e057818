/** Browser code (see dom.ts): the run overview (facts, charts, sortable and filterable table). */

import type { InstanceRow, RunOverview } from "../view/view-model.js";
import { attemptsBlock } from "./attempts.js";
import { barChart, columnChart } from "./charts.js";
import { el, fmtCost, fmtNum, fmtSeconds, resolvedBadge, statusBadge } from "./dom.js";

type SortKey = "id" | "exitStatus" | "resolved" | "steps" | "tokens" | "cost" | "wallSeconds" | "patchChars";

/** The value a column sorts by; null sorts last in both directions. */
export function sortValue(row: InstanceRow, key: SortKey): string | number | null {
  if (key === "tokens") {
    return row.prompt_tokens === null && row.completion_tokens === null
      ? null
      : (row.prompt_tokens ?? 0) + (row.completion_tokens ?? 0);
  }
  if (key === "resolved") return row.resolved === null ? null : row.resolved ? 1 : 0;
  return row[key];
}

/** Report files for display: per-instance report.json files grouped by folder, with a star for the id. */
export function summarizeReportFiles(files: string[]): string {
  const groups = new Map<string, number>();
  for (const f of files) {
    const key = f.endsWith("/report.json") ? f.replace(/[^/]+\/report\.json$/, "*/report.json") : f;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups.entries()].map(([k, n]) => (n > 1 ? `${k} (${n})` : k)).join(", ");
}

export function overviewRow(row: InstanceRow): HTMLElement {
  const idCell = row.trajectory
    ? el("a", { href: `#/t/${encodeURIComponent(row.trajectory)}` }, row.id)
    : el("span", { title: "no trajectory file" }, row.id);
  const tokens = sortValue(row, "tokens");
  return el(
    "tr",
    { "data-id": row.id },
    el(
      "td",
      { class: "id" },
      idCell,
      row.error ? el("div", { class: "error-text" }, row.error) : null,
      row.attempts ? attemptsBlock(row.attempts) : null,
    ),
    el("td", null, statusBadge(row.exitStatus)),
    el("td", null, resolvedBadge(row.resolved, row.evalOutcome)),
    el("td", { class: "num" }, fmtNum(row.steps)),
    el(
      "td",
      {
        class: "num",
        title: `prompt ${fmtNum(row.prompt_tokens)} / completion ${fmtNum(row.completion_tokens)}`,
      },
      fmtNum(typeof tokens === "number" ? tokens : null),
    ),
    el("td", { class: "num" }, fmtCost(row.cost)),
    el("td", { class: "num" }, fmtSeconds(row.wallSeconds)),
    el("td", { class: "num" }, row.patchChars === 0 ? "empty" : fmtNum(row.patchChars)),
  );
}

export function optionList(select: HTMLElement, values: string[]): void {
  for (const v of values) select.append(el("option", { value: v }, v));
}

/** Renders the overview; the table re-sorts on header clicks and re-filters on input. */
export function renderOverview(data: RunOverview): HTMLElement {
  const rows = data.rows;
  const evaluated = rows.filter((r) => r.resolved !== null);
  const resolvedN = evaluated.filter((r) => r.resolved).length;
  const facts = el("dl", { class: "facts" });
  const addFact = (k: string, v: string) => facts.append(el("dt", null, k), el("dd", null, v));
  addFact("instances", String(rows.length));
  addFact(
    "resolved",
    evaluated.length
      ? `${resolvedN}/${evaluated.length} (${((100 * resolvedN) / evaluated.length).toFixed(1)}%)`
      : "—",
  );
  const mismatched = rows.filter((r) => r.evalOutcome === "environment mismatch").length;
  if (mismatched) addFact("environment mismatch", `${mismatched} (not graded, not in the rate)`);
  const t = data.totals;
  if (t) {
    addFact("model", t.model ?? "—");
    addFact("config", t.configSources.length ? t.configSources.join(", ") : "—");
    addFact("model calls", `${fmtNum(t.api_calls)} (every run of this folder)`);
    addFact("cost", `${fmtCost(t.cost)} (every run of this folder)`);
  } else {
    addFact("cost", `${fmtCost(rows.reduce((sum, r) => sum + (r.cost ?? 0), 0))} (from the trajectories)`);
  }
  for (const [k, v] of Object.entries(data.runFacts)) addFact(k, v);

  const charts = el(
    "div",
    { class: "charts" },
    barChart(
      "resolved-by-repo",
      "Resolved rate per repository (%)",
      data.charts.resolvedByRepo,
      100,
      "no evaluation report found",
    ),
    columnChart("steps", "Steps per instance", data.charts.stepsHistogram, "no trajectories"),
    barChart("exit-statuses", "Exit statuses", data.charts.exitStatuses, null, "no instances"),
  );

  const text = el("input", {
    type: "search",
    placeholder: "filter by id, repository, status",
    id: "filter-text",
  });
  const status = el("select", { id: "filter-status" }, el("option", { value: "" }, "all exit statuses"));
  optionList(status, [...new Set(rows.map((r) => r.exitStatus ?? "(none)"))].sort());
  const resolved = el(
    "select",
    { id: "filter-resolved" },
    el("option", { value: "" }, "all results"),
    el("option", { value: "yes" }, "resolved"),
    el("option", { value: "no" }, "unresolved"),
    el("option", { value: "none" }, "not evaluated"),
  );
  const count = el("span", { class: "muted", id: "row-count" });
  const tbody = el("tbody", null);
  const columns: Array<[SortKey, string]> = [
    ["id", "instance"],
    ["exitStatus", "exit status"],
    ["resolved", "result"],
    ["steps", "steps"],
    ["tokens", "tokens"],
    ["cost", "cost"],
    ["wallSeconds", "wall time"],
    ["patchChars", "patch chars"],
  ];
  let sortKey: SortKey = "id";
  let ascending = true;
  const headRow = el("tr", null);

  const refresh = () => {
    const needle = (text as HTMLInputElement).value.trim().toLowerCase();
    const wantStatus = (status as HTMLSelectElement).value;
    const wantResolved = (resolved as HTMLSelectElement).value;
    const shown = rows.filter((r) => {
      const hay = `${r.id} ${r.repo} ${r.exitStatus ?? ""}`.toLowerCase();
      if (needle && !hay.includes(needle)) return false;
      if (wantStatus && (r.exitStatus ?? "(none)") !== wantStatus) return false;
      if (wantResolved === "yes" && r.resolved !== true) return false;
      if (wantResolved === "no" && r.resolved !== false) return false;
      if (wantResolved === "none" && r.resolved !== null) return false;
      return true;
    });
    shown.sort((a, b) => {
      const x = sortValue(a, sortKey);
      const y = sortValue(b, sortKey);
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      const order = x < y ? -1 : x > y ? 1 : 0;
      return ascending ? order : -order;
    });
    tbody.replaceChildren(...shown.map(overviewRow));
    count.textContent = `${shown.length} of ${rows.length} shown`;
    headRow.querySelectorAll("th").forEach((th) => {
      const key = th.getAttribute("data-key");
      th.setAttribute("aria-sort", key === sortKey ? (ascending ? "ascending" : "descending") : "none");
    });
  };
  for (const [key, label] of columns) {
    const th = el("th", { "data-key": key, tabindex: "0" }, label);
    th.addEventListener("click", () => {
      ascending = sortKey === key ? !ascending : true;
      sortKey = key;
      refresh();
    });
    headRow.append(th);
  }
  text.addEventListener("input", refresh);
  status.addEventListener("change", refresh);
  resolved.addEventListener("change", refresh);
  refresh();

  const problems = data.problems.length
    ? el("ul", { class: "problems" }, ...data.problems.map((p) => el("li", null, p)))
    : null;
  const evalNote = data.evalFiles.length
    ? el("p", { class: "muted", id: "eval-files" }, `evaluation: ${summarizeReportFiles(data.evalFiles)}`)
    : el("p", { class: "muted", id: "eval-files" }, `no evaluation found: ${data.evalSearch}`);
  const configBox = t?.config
    ? el(
        "details",
        { class: "prompt", id: "run-config" },
        el("summary", null, "resolved config (run.json)"),
        el("pre", { class: "text" }, JSON.stringify(t.config, null, 2)),
      )
    : null;
  return el(
    "div",
    { class: "overview" },
    el("h1", null, data.name),
    facts,
    configBox,
    evalNote,
    problems,
    charts,
    el("div", { class: "filters" }, text, status, resolved, count),
    el("table", { class: "runs", id: "instances" }, el("thead", null, headRow), tbody),
  );
}
