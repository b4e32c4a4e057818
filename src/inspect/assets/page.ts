import { barChart, columnChart } from "../client/charts.js";
import { diffLineClass, renderDiff } from "../client/diff.js";
import {
  badge,
  el,
  fmtCost,
  fmtNum,
  fmtSeconds,
  getJson,
  mount,
  resolvedBadge,
  statusBadge,
  svgEl,
} from "../client/dom.js";
import { plMain, showRoute } from "../client/main.js";
import { overviewRow, renderOverview, sortValue } from "../client/overview.js";
import {
  evalBlock,
  jumpButton,
  observationBlock,
  promptBlock,
  renderTrajectory,
  stepBlock,
} from "../client/trajectory.js";

/** Every browser-side function; each refers to the others by name inside one script scope. */
const CLIENT_FUNCTIONS: Array<(...args: never[]) => unknown> = [
  el,
  svgEl,
  fmtNum,
  fmtCost,
  fmtSeconds,
  getJson,
  mount,
  badge,
  statusBadge,
  resolvedBadge,
  barChart,
  columnChart,
  diffLineClass,
  renderDiff,
  sortValue,
  overviewRow,
  renderOverview,
  promptBlock,
  observationBlock,
  stepBlock,
  evalBlock,
  jumpButton,
  renderTrajectory,
  showRoute,
  plMain,
];

/**
 * The page script, served as /app.js: the compiled source text of the functions in ../client/,
 * wrapped in one function scope, then a call to plMain(). This works when those functions are the
 * plain tsc output (dist/, what the CLI runs); a bundler or test transform that rewrites references
 * between modules would break it, so browser tests start the server from dist/.
 */
export function pageScript(): string {
  const body = CLIENT_FUNCTIONS.map((fn) => fn.toString()).join("\n\n");
  return `"use strict";\n(() => {\n${body}\n\nvoid plMain();\n})();\n`;
}

/** The HTML shell, served as /. The title and header name come from the served folder (escaped). */
export function pageHtml(name: string): string {
  const safe = name.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${safe} · patchloop inspect</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<header class="top"><a href="#/">patchloop inspect</a><span class="where">${safe}</span></header>
<main id="app" aria-busy="true">Loading…</main>
<script src="/app.js"></script>
</body>
</html>
`;
}
