#!/usr/bin/env node
// Maintainer tool, not a command: makes the leaderboard snapshot `patchloop report` compares a run
// with, from the SWE-bench website's data file.
//
//   git -C <swe-bench.github.io> show <commit>:data/leaderboards.json > leaderboards.json
//   node scripts/leaderboard-snapshot.mjs leaderboards.json <commit> <commit date YYYY-MM-DD>
//
// writes assets/leaderboards/swe-bench-<date>.json: per leaderboard (Lite, Verified) the split's
// size and every entry's name, resolved percentage, submission date, whether the model and the
// system are open, whether the maintainers checked it, and its attempts tag, best first.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [file, commit, date] = process.argv.slice(2);
if (!file || !/^[0-9a-f]{40}$/.test(commit ?? "") || !/^\d{4}-\d{2}-\d{2}$/.test(date ?? "")) {
  process.stderr.write("usage: node scripts/leaderboard-snapshot.mjs LEADERBOARDS.json COMMIT(40 hex) YYYY-MM-DD\n");
  process.exit(2);
}
const source = JSON.parse(readFileSync(file, "utf8"));
const WANTED = { Lite: { key: "lite", instances: 300 }, Verified: { key: "verified", instances: 500 } };
const leaderboards = {};
for (const board of source.leaderboards) {
  const want = WANTED[board.name];
  if (!want) continue;
  const entries = board.results
    .map((r) => ({
      name: r.name,
      resolved: r.resolved,
      date: r.date,
      open_model: r.os_model === true,
      open_system: r.os_system === true,
      checked: r.checked === true,
      attempts: (r.tags ?? []).find((t) => t.startsWith("System: Attempts - "))?.slice(19) ?? null,
      ...(r.warning ? { warning: r.warning } : {}),
    }))
    .sort((a, b) => b.resolved - a.resolved || (a.name < b.name ? -1 : 1));
  leaderboards[want.key] = { name: `SWE-bench ${board.name}`, instances: want.instances, entries };
}
const out = {
  format: "patchloop-leaderboards-1",
  date,
  source: `https://github.com/SWE-bench/swe-bench.github.io/blob/${commit}/data/leaderboards.json`,
  leaderboards,
};
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const path = join(root, "assets", "leaderboards", `swe-bench-${date}.json`);
// one entry a line: the file reads (and diffs) as a table
const boards = Object.entries(leaderboards).map(
  ([k, v]) =>
    `  ${JSON.stringify(k)}: {"name": ${JSON.stringify(v.name)}, "instances": ${v.instances}, "entries": [\n${v.entries
      .map((e) => `    ${JSON.stringify(e)}`)
      .join(",\n")}\n  ]}`,
);
const head = JSON.stringify({ format: out.format, date, source: out.source }).slice(0, -1);
writeFileSync(path, `${head},\n "leaderboards": {\n${boards.join(",\n")}\n}}\n`);
JSON.parse(readFileSync(path, "utf8"));
process.stdout.write(`${path}: ${Object.entries(leaderboards).map(([k, v]) => `${k} ${v.entries.length}`).join(", ")}\n`);
