import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { normalizeTrajectory } from "../../src/inspect/normalize.js";
import { tempDir } from "../support/tmp.js";
import { spawnCli, waitForUrl } from "./cli-driver.js";

const CHROMIUM = "/usr/bin/chromium";

/** A patchloop trajectory of three steps with the per-request token facts the loop records. */
function trajectory(): unknown {
  const reply = (step: number, usage: Record<string, number>, shared: number) => ({
    role: "assistant",
    content: `step ${step}`,
    extra: { step, usage, request: { policy: "mask_observations", shared_tokens: shared } },
  });
  const obs = (step: number) => ({ role: "user", content: `out ${step}`, extra: { step, returncode: 0 } });
  return {
    trajectory_format: "patchloop-1",
    info: { exit_status: "Submitted", model_stats: { api_calls: 3 } },
    messages: [
      { role: "system", content: "s" },
      { role: "user", content: "t" },
      reply(1, { prompt_tokens: 1000, completion_tokens: 5 }, 0),
      obs(1),
      reply(2, { prompt_tokens: 1500, completion_tokens: 5, cached_tokens: 992 }, 1000),
      obs(2),
      reply(3, { prompt_tokens: 700, completion_tokens: 5, cached_tokens: 320 }, 330),
      obs(3),
    ],
  };
}

describe("per-step prompt and cached tokens", () => {
  it("the view has each step's cached tokens and shared prefix when the trajectory records them", () => {
    const v = normalizeTrajectory(trajectory(), "t.traj.json");
    expect(v.steps.map((s) => [s.prompt_tokens, s.cached_tokens, s.sharedPrefixTokens])).toEqual([
      [1000, undefined, 0],
      [1500, 992, 1000],
      [700, 320, 330],
    ]);
    // mini-swe-agent's raw usage: OpenAI's prompt_tokens_details
    const mini = normalizeTrajectory(
      [
        { role: "system", content: "s" },
        { role: "user", content: "t" },
        {
          role: "assistant",
          content: "x",
          extra: { response: { usage: { prompt_tokens: 90, prompt_tokens_details: { cached_tokens: 64 } } } },
        },
      ],
      "m.traj.json",
    );
    expect([mini.steps[0].prompt_tokens, mini.steps[0].cached_tokens]).toEqual([90, 64]);
  });

  const missing = !existsSync(CHROMIUM);
  if (missing)
    console.warn(`token chart browser test SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium)`);
  let cli: ChildProcess | undefined;
  let profile: string | undefined;
  afterAll(() => {
    cli?.kill("SIGTERM");
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it.skipIf(missing)(
    "inspect draws one column per step, the cached part and the shared-prefix tick",
    async () => {
      const dir = tempDir();
      const file = join(dir, "t.traj.json");
      writeFileSync(file, JSON.stringify(trajectory()));
      cli = spawnCli(["inspect", file, "--port", "0"]);
      const url = await waitForUrl(cli);
      profile = mkdtempSync(join(tmpdir(), "patchloop-chromium-"));
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
      });
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.message));
        await page.goto(url);
        const chart = page.locator('[data-chart="prompt-tokens"]');
        await chart.waitFor();
        const heights = (sel: string) =>
          chart
            .locator(sel)
            .evaluateAll((els) =>
              els.map((e) => [e.getAttribute("data-step"), Number(e.getAttribute("height"))]),
            );
        // columns scaled to the largest prompt (1500 tokens = 120 px)
        expect(await heights("rect.prompt")).toEqual([
          ["1", 80],
          ["2", 120],
          ["3", 56],
        ]);
        expect(await heights("rect.cached")).toEqual([
          ["2", 79],
          ["3", 26],
        ]);
        expect(await chart.locator("line.shared").count()).toBe(3);
        expect(await chart.locator("rect.prompt title").nth(1).textContent()).toBe(
          "step 2: 1500 prompt tokens, 992 cached by the server, 1000 shared with the previous request",
        );
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});
