/** The viewer's stylesheet, served as /app.css (kept in a .ts module so it ships inside dist/). */
export const STYLES = `
:root {
  --bg: #f7f7f5; --fg: #1d1f21; --muted: #6b7075; --card: #fff; --line: #dedfdc;
  --ok: #1f7a3a; --ok-bg: #e3f3e7; --bad: #a32020; --bad-bg: #fbe5e5; --warn: #8a5a00; --warn-bg: #fdf1d8;
  --accent: #2f5d9e; --code-bg: #f2f3f1;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
header.top { background: #22272e; color: #e6e6e6; padding: 8px 20px; display: flex; gap: 16px; align-items: baseline; }
header.top a { color: #fff; font-weight: 600; text-decoration: none; }
header.top .where { color: #aab; font-family: ui-monospace, monospace; font-size: 12px; }
main { padding: 16px 20px 60px; max-width: 1200px; margin: 0 auto; }
h1 { font-size: 20px; margin: 8px 0 12px; word-break: break-all; }
h2 { font-size: 16px; margin: 20px 0 8px; }
h3 { font-size: 14px; margin: 0 0 6px; display: flex; gap: 10px; align-items: baseline; }
a { color: var(--accent); }
.muted { color: var(--muted); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 12px; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 1px 7px; border-radius: 9px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.badge-ok { background: var(--ok-bg); color: var(--ok); } .badge-bad { background: var(--bad-bg); color: var(--bad); }
.badge-warn { background: var(--warn-bg); color: var(--warn); } .badge-muted { background: #ececea; color: var(--muted); }
.charts { display: flex; flex-wrap: wrap; gap: 14px; margin: 10px 0 18px; align-items: flex-start; }
.chart { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 0; }
.chart figcaption { font-weight: 600; margin-bottom: 6px; }
.chart .bar { fill: var(--accent); } .chart .track { fill: #eef0f3; }
.chart .bar.prompt { fill: #b8c7e0; } .chart .bar.cached { fill: var(--accent); } .chart .shared { stroke: #d9480f; stroke-width: 2; }
.chart-label, .chart-caption { font-size: 11px; fill: var(--fg); } .chart-caption { fill: var(--muted); }
.filters { display: flex; gap: 8px; align-items: center; margin: 8px 0; }
.filters input { padding: 5px 8px; min-width: 260px; border: 1px solid var(--line); border-radius: 4px; }
.filters select { padding: 4px; }
table.runs { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); }
table.runs th { text-align: left; padding: 6px 8px; border-bottom: 2px solid var(--line); cursor: pointer; user-select: none; white-space: nowrap; }
table.runs th[aria-sort="ascending"]::after { content: " ▲"; } table.runs th[aria-sort="descending"]::after { content: " ▼"; }
table.runs td { padding: 5px 8px; border-bottom: 1px solid #eeeeec; }
table.runs td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.runs td.id { font-family: ui-monospace, monospace; font-size: 13px; }
table.runs tr:hover td { background: #f4f7fb; }
.error-text { color: var(--bad); font-size: 12px; }
.attempts { margin-top: 4px; font-family: system-ui, sans-serif; }
ol.attempt-list { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; padding: 0; margin: 4px 0; }
li.attempt { border: 1px solid var(--line); border-radius: 5px; padding: 4px 7px; font-size: 12px; min-width: 150px; }
li.attempt.shown { border: 2px solid var(--accent); }
.attempt-head { display: flex; gap: 6px; font-weight: 600; } .shown-mark { color: var(--accent); }
.attempt-numbers { color: var(--muted); } ul.signals { margin: 2px 0 0; padding-left: 14px; }
details.selection { font-size: 12px; } details.selection summary { cursor: pointer; }
details.selection pre { max-height: 160px; }
.error-box { background: var(--bad-bg); color: var(--bad); padding: 12px; border-radius: 6px; white-space: pre-wrap; }
.problems { color: var(--warn); }
pre.text, pre.diff { margin: 0; padding: 8px 10px; background: var(--code-bg); border-radius: 4px; white-space: pre-wrap;
  word-break: break-word; font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; max-height: 480px; overflow: auto; }
details.prompt { background: var(--card); border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 6px 10px; }
details.prompt summary { cursor: pointer; font-weight: 600; }
details.prompt pre { margin-top: 6px; }
section.step { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--accent); border-radius: 6px;
  margin: 12px 0; padding: 10px 12px; }
section.step.flagged { border-left-color: var(--bad); }
.tokens { color: var(--muted); font-weight: normal; font-size: 12px; }
.block { margin: 6px 0; } .block-head { font-size: 11px; font-weight: 700; letter-spacing: .06em; color: var(--muted);
  margin-bottom: 3px; display: flex; gap: 8px; align-items: center; }
.block.action pre { background: #eaf0f8; } .block.action.none { color: var(--muted); font-style: italic; }
.block.format-error pre { background: var(--bad-bg); } .block.timed-out pre { background: var(--warn-bg); }
pre.diff { max-height: none; } pre.diff span { display: block; }
.diff-add { background: #e6f6e9; color: #14532d; } .diff-del { background: #fbe9e9; color: #7f1d1d; }
.diff-hunk { color: #6b4fa0; } .diff-meta { color: var(--muted); font-weight: 600; }
section.eval ul.failing { margin: 4px 0 10px; }
button.link { background: none; border: none; color: var(--accent); cursor: pointer; padding: 0 4px; font: inherit; text-decoration: underline; }
section.run-report { margin-top: 24px; } table.report-table { border-collapse: collapse; margin: 4px 0 12px; }
table.report-table th, table.report-table td { text-align: left; padding: 3px 14px 3px 0; border-bottom: 1px solid #e5e7eb; }
`;
