import * as attempts from "../client/attempts.js";
import * as charts from "../client/charts.js";
import * as diff from "../client/diff.js";
import * as dom from "../client/dom.js";
import * as main from "../client/main.js";
import * as overview from "../client/overview.js";
import * as report from "../client/report.js";
import * as trajectory from "../client/trajectory.js";

/**
 * Every browser-side function: all exports of the client modules (a helper a client function calls
 * must therefore be exported too). They refer to each other by name inside one script scope.
 */
function clientFunctions(): Array<(...args: never[]) => unknown> {
  const modules: object[] = [dom, charts, diff, attempts, overview, report, trajectory, main];
  return modules.flatMap((m) =>
    Object.values(m).filter((v): v is (...args: never[]) => unknown => typeof v === "function"),
  );
}

/**
 * The page script, served as /app.js: the compiled source text of the functions in ../client/,
 * wrapped in one function scope, then a call to plMain(). This works when those functions are the
 * plain tsc output (dist/, what the CLI runs); a bundler or test transform that rewrites references
 * between modules would break it, so browser tests start the server from dist/.
 */
export function pageScript(): string {
  const body = clientFunctions()
    .map((fn) => fn.toString())
    .join("\n\n");
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
