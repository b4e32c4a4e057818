import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runAgent } from "../src/agent/agent.js";
import { createActionRunner } from "../src/agent/create-runner.js";
import { type TokensReport, tokensReports } from "../src/cli/tokens.js";
import { loadConfig } from "../src/config/load.js";
import { createLocalEnvironment } from "../src/environments/local.js";
import { ScriptedModel, type ScriptedResponse } from "../src/models/scripted.js";
import { makeBenchRepo } from "./repo.js";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

/** Every `.ts` file under `dir`, relative, sorted. */
function tsFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...tsFiles(dir, r));
    else if (e.name.endsWith(".ts")) out.push(r);
  }
  return out.sort();
}

/**
 * The commands of a long exploring run over a real code base (this project's src/): reading files
 * whole and in parts, searching, listing, history, the way agents spend most of their steps.
 */
function commands(files: string[], steps: number): string[] {
  const out: string[] = [];
  const words = ["export", "async", "throw", "config", "message", "return", "const", "interface"];
  for (let i = 0; out.length < steps; i++) {
    const f = files[(i * 7) % files.length];
    const kind = i % 6;
    if (kind === 0) out.push(`cat -n src/${f}`);
    else if (kind === 1) out.push(`grep -rn "${words[i % words.length]}" src/${f.split("/")[0]} | head -80`);
    else if (kind === 2) out.push(`sed -n '1,120p' src/${f}`);
    else if (kind === 3) out.push(`ls -la src/${f.split("/")[0]} && wc -l src/${f}`);
    else if (kind === 4) out.push(`git log --stat -3 -- src/${f} | head -40; cat src/${f} | head -60`);
    else out.push(`grep -n "function\\|class" src/${f}`);
  }
  return out;
}

/** Records `runs` trajectories of `steps` real commands each into `dir` (a scripted model, a real shell). */
async function recordLongTrajectories(dir: string, runs: number, steps: number): Promise<string[]> {
  const repo = join(dir, "repo");
  makeBenchRepo(repo, { "README.md": "bench\n" });
  cpSync(SRC, join(repo, "src"), { recursive: true });
  const files = tsFiles(join(repo, "src"));
  const paths: string[] = [];
  for (let r = 0; r < runs; r++) {
    const script: ScriptedResponse[] = commands(
      files.slice(r * 13).concat(files.slice(0, r * 13)),
      steps,
    ).map((command, i) => ({
      content: `Step ${i + 1}: looking at the code to find where the behaviour comes from.`,
      toolCalls: [{ name: "bash", arguments: { command } }],
    }));
    const { config } = loadConfig({
      configArgs: [
        "default",
        "model.model_name=openai/Qwen/Qwen3-Coder-30B-A3B-Instruct",
        `agent.step_limit=${steps}`,
      ],
      defaultConfig: "default",
    });
    const env = createLocalEnvironment({ cwd: repo, timeout: 30 });
    const path = join(dir, `run-${r}.traj.json`);
    const result = await runAgent({
      config,
      model: new ScriptedModel(script),
      env,
      runner: createActionRunner(config),
      task: "Find why the trajectory grows so fast and propose a fix.",
      trajectoryPath: path,
    });
    await env.close();
    if (result.exitStatus !== "LimitsExceeded")
      throw new Error(`bench history: run ended ${result.exitStatus}`);
    paths.push(path);
  }
  return paths;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The share of a server's KV cache one run can count on when many share a GPU: e.g. Qwen3-Coder-30B-A3B
 * keeps 48 layers x 4 KV heads x 128 x 2 (K and V) x 2 bytes = 96 KiB a token, so ~40 GB left on an
 * 80 GB GPU hold ~400k tokens, ~16k for each of 24 concurrent runs.
 */
const BOUNDED_CACHE_TOKENS = 16_384;

/**
 * Cache shares the prefill is also measured at, from a GPU shared by many runs to one run alone on
 * it. A cache that never evicts (the last) is the best case for `full`: there it prefills each token
 * once, and no policy can prefill less.
 */
const CACHE_SWEEP = [BOUNDED_CACHE_TOKENS, 32_768, 65_536, 131_072, Number.POSITIVE_INFINITY];
const sweepKey = (c: number) => (Number.isFinite(c) ? `${c / 1024}k` : "unbounded");
const BOUNDED = CACHE_SWEEP.indexOf(BOUNDED_CACHE_TOKENS);
const UNBOUNDED = CACHE_SWEEP.length - 1;

/**
 * `agent.history` on long recorded trajectories (`patchloop tokens` with the Qwen tokenizer):
 * `full` against `mask_observations` in blocks, every 10 or 25 steps and at a context threshold.
 * Per policy: prompt tokens (what a server without a prefix cache prefills and what APIs bill), the
 * tokens a block prefix cache still prefills (16-token blocks) with no bound on the cache (the best
 * case for `full`) and with BOUNDED_CACHE_TOKENS per run, the ratio to `full` at each size of
 * CACHE_SWEEP, the largest prompt, and the share of requests that begin with the whole previous
 * request.
 */
export async function benchHistory(
  o: { runs?: number; steps?: number } = {},
): Promise<Record<string, unknown>> {
  const runs = o.runs ?? 3;
  const steps = o.steps ?? 150;
  const dir = mkdtempSync(join(tmpdir(), "patchloop-bench-history-"));
  try {
    const paths = await recordLongTrajectories(dir, runs, steps);
    const policies: Record<string, string[]> = {
      full: [],
      mask_every_10: [
        "agent.history.policy=mask_observations",
        "agent.history.keep_last=5",
        "agent.history.every=10",
      ],
      mask_every_25: [
        "agent.history.policy=mask_observations",
        "agent.history.keep_last=5",
        "agent.history.every=25",
      ],
      mask_at_threshold: [
        "agent.history.policy=mask_observations",
        "agent.history.keep_last=5",
        "agent.history.every=0",
        "agent.history.threshold=0.8",
        "agent.context_limit=32768",
      ],
    };
    const out: Record<string, unknown> = {
      trajectories: runs,
      steps_each: steps,
      tokenizer: "qwen",
      bounded_cache_tokens: BOUNDED_CACHE_TOKENS,
    };
    let full: TokensReport[] | null = null;
    for (const [name, args] of Object.entries(policies)) {
      const { config } = loadConfig({ configArgs: ["default", ...args], defaultConfig: "default" });
      const reports = await tokensReports(paths, config, {
        tokenizer: "qwen",
        caches: CACHE_SWEEP.map((c) => (Number.isFinite(c) ? c : undefined)),
      });
      full ??= reports;
      const ratio = (c: number) =>
        round(reports[c].total.prefill_tokens / (full?.[c].total.prefill_tokens ?? 1));
      const t = reports[UNBOUNDED].total;
      out[name] = {
        prompt_tokens: t.prompt_tokens,
        prefill_tokens: t.prefill_tokens,
        prefill_tokens_bounded_cache: reports[BOUNDED].total.prefill_tokens,
        largest_prompt: t.largest_prompt,
        append_only_share: round(t.append_only_requests / t.later_requests),
        block_steps: t.block_steps,
        prompt_over_full: round(t.prompt_tokens / full[UNBOUNDED].total.prompt_tokens),
        prefill_over_full: ratio(UNBOUNDED),
        prefill_bounded_over_full: ratio(BOUNDED),
        prefill_over_full_by_cache: Object.fromEntries(CACHE_SWEEP.map((c, i) => [sweepKey(c), ratio(i)])),
      };
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
