import { benchAgentOverhead } from "./agent-overhead.js";

/**
 * `npm run bench`: speed and memory figures, each reported with its floor or ideal measured in
 * the same run (ratios travel between machines; absolute times do not). Sections: agent overhead
 * per step; environment command latency; batch throughput. `--only NAME` runs one section.
 */
type Section = { name: string; run: () => Promise<Record<string, unknown>> };

async function optional(path: string, fn: string): Promise<(() => Promise<Record<string, unknown>>) | null> {
  try {
    const mod = (await import(path)) as Record<string, () => Promise<Record<string, unknown>>>;
    return mod[fn] ?? null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  const sections: Section[] = [{ name: "agent-overhead", run: () => benchAgentOverhead() }];
  const envs = await optional("./environments.js", "benchEnvironments");
  if (envs) sections.push({ name: "environments", run: envs });
  const tp = await optional("./throughput.js", "benchThroughput");
  if (tp) sections.push({ name: "throughput", run: tp });
  for (const s of sections) {
    if (only && s.name !== only) continue;
    process.stdout.write(`\n== ${s.name} ==\n`);
    const t0 = Date.now();
    const figures = await s.run();
    process.stdout.write(
      `${JSON.stringify(figures, null, 2)}\n(${((Date.now() - t0) / 1000).toFixed(1)} s)\n`,
    );
  }
}

await main();
