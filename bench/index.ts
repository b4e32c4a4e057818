import { benchAgentOverhead } from "./agent-overhead.js";
import { benchEnvironments } from "./environments.js";
import { benchHistory } from "./history.js";
import { benchLongRun } from "./long-run.js";
import { benchStartup } from "./startup.js";
import { benchThroughput } from "./throughput.js";

/**
 * `npm run bench`: speed and memory figures, each reported with its floor or ideal measured in
 * the same run (ratios travel between machines; absolute times do not). Sections: agent overhead
 * per step; the model clients' per-step overhead, embedded GGUF and HTTP (gguf-overhead.ts); environment command latency; batch throughput (at the fake server's latency, then at
 * a served model's); agent.history on long recorded trajectories (history.ts); 300 steps of 10 kB
 * observations, first 50 against last 50 (long-run.ts); start-up to the first request and a
 * one-task run's memory (startup.ts); work trees without later history on a large repository
 * (checkout.ts, with --repos-dir); the viewer's memory on a 100 MB trajectory (viewer.ts); the
 * shape of src/: import cycles and the longest functions (structure.ts); patch selection on other
 * systems' published SWE-bench Lite predictions (selection.ts, with data made beforehand); `peer`:
 * patchloop beside mini-swe-agent on the same scripted server, interleaved, as ratios with the load
 * (peer.ts: one task of 100 steps of `true`, 100 and 300 steps of 9.9 kB, a batch of 32 × 5 calls at
 * 8 and 32 workers; needs `--mini-dir DIR`, a snapshot of mini-swe-agent's source, and Debian's
 * python3 packages; not part of a plain `npm run bench`, nor of CI or the tests).
 * `--only NAME` runs one section.
 */
type Section = { name: string; optIn?: boolean; run: () => Promise<Record<string, unknown>> };

/**
 * Throughput at the latency of a served model rather than of the fake server alone: with 64
 * requests in flight, a model on one GPU takes seconds per reply (prefill of a long context plus a
 * few hundred tokens decoded), and replies do not come back in lockstep. 5 s ± 50% is the fast end.
 */
const SERVED = { workers: [64], latencyMs: 5000, jitter: 0.5 };

async function main(): Promise<void> {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  const sections: Section[] = [
    { name: "agent-overhead", run: () => benchAgentOverhead() },
    { name: "model-clients", run: async () => (await import("./gguf-overhead.js")).benchGgufOverhead() },
    { name: "environments", run: () => benchEnvironments() },
    { name: "throughput", run: () => benchThroughput() },
    { name: "throughput-served", run: () => benchThroughput(SERVED) },
    { name: "distributed", run: async () => (await import("./distributed.js")).benchDistributed() },
    { name: "history", run: () => benchHistory() },
    {
      name: "long-run",
      run: async () => ({
        full: await benchLongRun(),
        mask_observations: await benchLongRun({
          configArgs: [
            "agent.history.policy=mask_observations",
            "agent.history.keep_last=5",
            "agent.history.every=25",
          ],
        }),
      }),
    },
    { name: "startup", run: () => benchStartup() },
    { name: "localize", run: async () => (await import("./localize.js")).benchLocalize() },
    { name: "checkout", run: async () => (await import("./checkout.js")).benchCheckout() },
    { name: "viewer", run: async () => (await import("./viewer.js")).benchViewer() },
    { name: "structure", run: async () => (await import("./structure.js")).benchStructure() },
    { name: "selection", run: async () => (await import("./selection.js")).benchSelection() },
    { name: "peer", optIn: true, run: async () => (await import("./peer.js")).benchPeer() },
  ];
  for (const s of sections) {
    if (only ? s.name !== only : s.optIn) continue;
    process.stdout.write(`\n== ${s.name} ==\n`);
    const t0 = Date.now();
    const figures = await s.run();
    process.stdout.write(
      `${JSON.stringify(figures, null, 2)}\n(${((Date.now() - t0) / 1000).toFixed(1)} s)\n`,
    );
  }
}

await main();
