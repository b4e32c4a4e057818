import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * `npm run bench -- --only viewer`: the memory the viewer needs to open a 100 MB trajectory (300
 * steps of 330 kB observations), read streamed and clipped (src/inspect/clipped-json.ts), against
 * reading the same file whole with JSON.parse (what it did before) and against an idle Node process.
 * Each figure is the peak RSS of its own child process.
 */

const LOADER = resolve(import.meta.dirname, "..", "src", "inspect", "normalize.js");

function peakRss(script: string): number {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return Number(out.trim().split("\n").pop());
}

export async function benchViewer(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "patchloop-bench-viewer-"));
  try {
    const path = join(dir, "big.traj.json");
    const observation = "line of test output that goes on and on\n".repeat(8250);
    const messages: unknown[] = [
      { role: "system", content: "s" },
      { role: "user", content: "task" },
    ];
    for (let i = 0; i < 300; i++) {
      messages.push({ role: "assistant", content: `step ${i}`, tool_calls: [] });
      messages.push({ role: "user", content: `${i}\n${observation}` });
    }
    writeFileSync(
      path,
      JSON.stringify({
        trajectory_format: "patchloop-1",
        info: { exit_status: "Submitted", submission: "", model_stats: { api_calls: 300 } },
        messages,
      }),
    );
    const size = statSync(path).size;
    const report = "process.stdout.write(String(process.resourceUsage().maxRSS * 1024))";
    const idle = peakRss(report);
    const streamed = peakRss(
      `const { loadTrajectoryFile } = await import(${JSON.stringify(LOADER)}); const v = await loadTrajectoryFile(${JSON.stringify(path)}); JSON.stringify(v); ${report}`,
    );
    const whole = peakRss(
      `import { readFileSync } from "node:fs"; const { normalizeTrajectory } = await import(${JSON.stringify(LOADER)}); const v = normalizeTrajectory(JSON.parse(readFileSync(${JSON.stringify(path)}, "utf8")), "x"); JSON.stringify(v); ${report}`,
    );
    const mb = (b: number) => Math.round(b / 1e5) / 10;
    return {
      file_mb: mb(size),
      idle_node_rss_mb: mb(idle),
      streamed_clipped_rss_mb: mb(streamed),
      json_parse_whole_rss_mb: mb(whole),
      streamed_over_idle: Math.round((streamed / idle) * 10) / 10,
      whole_over_streamed: Math.round((whole / streamed) * 10) / 10,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
