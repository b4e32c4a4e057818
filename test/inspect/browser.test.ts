import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { attemptEvalSearchText } from "../../src/inspect/run-folder.js";
import { spawnCli, waitForUrl } from "./cli-driver.js";
import { makeAttemptsFolder, makeRunFolder, SELECTION_XSS, SYSTEM_PROMPT, XSS } from "./run-fixture.js";

const CHROMIUM = "/usr/bin/chromium";
const missing = !existsSync(CHROMIUM);
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

if (missing && process.env.CI === "true") {
  test("Chromium is installed (required in CI)", () => {
    throw new Error(`${CHROMIUM} is missing; CI must run: apt-get install -y chromium`);
  });
}
if (missing) console.warn(`browser tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium)`);

async function launch(): Promise<{ context: BrowserContext; profile: string }> {
  const profile = mkdtempSync(join(tmpdir(), "patchloop-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return { context, profile };
}

/** Cell texts of the overview table, row by row. */
async function tableRows(page: Page): Promise<string[][]> {
  return page.$$eval("#instances tbody tr", (trs) =>
    trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim())),
  );
}

/**
 * `patchloop inspect DIR` on a free port and a page of Chromium on it; the page's dialogs (each
 * dismissed) and errors go to `dialogs` and `pageErrors`.
 */
async function openViewer(dir: string, dialogs: string[], pageErrors: string[]) {
  const cli = spawnCli(["inspect", dir, "--port", "0"]);
  const url = await waitForUrl(cli);
  const { context, profile } = await launch();
  const page = await context.newPage();
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => pageErrors.push(e.message));
  return { cli, url, context, profile, page };
}

/** Ends what openViewer started (any part may be missing when it failed) and removes `dir`. */
async function closeViewer(
  dir: string,
  v: { cli?: ChildProcess; context?: BrowserContext; profile?: string },
): Promise<void> {
  await v.context?.close();
  v.cli?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
  if (v.profile) rmSync(v.profile, { recursive: true, force: true });
}

describe.skipIf(missing)(`web viewer in headless Chromium (${CHROMIUM})`, () => {
  const dir = makeRunFolder();
  let cli: ChildProcess;
  let url: string;
  let context: BrowserContext;
  let profile: string;
  let page: Page;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ cli, url, context, profile, page } = await openViewer(dir, dialogs, pageErrors));
  });
  afterAll(() => closeViewer(dir, { cli, context, profile }));

  test("the CLI printed a loopback URL", () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  test("overview: one row per instance, and the three charts", async () => {
    await page.goto(url);
    await page.waitForSelector("#instances tbody tr");
    expect(await tableRows(page)).toEqual([
      ["django__django-11099", "Submitted", "resolved", "3", "3,390", "$0.2500", "42.5 s", "77"],
      ["django__django-12345", "Submitted", "unresolved", "2", "2,100", "$0.2500", "12.0 s", "65"],
      ["psf__requests-2317", "Submitted", "resolved", "2", "2,100", "$0.2500", "30.0 s", "98"],
      ["sympy__sympy-20590", "LimitsExceeded", "unresolved", "5", "5,250", "$0.2500", "1m 35s", "empty"],
    ]);
    const bars = (chart: string) =>
      page.$$eval(`figure[data-chart="${chart}"] svg rect.bar`, (rects) =>
        rects.map((r) => [
          r.getAttribute("data-label"),
          Number(r.getAttribute("width")),
          Number(r.getAttribute("height")),
        ]),
      );
    expect((await bars("resolved-by-repo")).map(([label, width]) => [label, width])).toEqual([
      ["django/django", 95],
      ["psf/requests", 190],
      ["sympy/sympy", 0],
    ]);
    expect((await bars("steps")).map(([label, , height]) => [label, height])).toEqual([
      ["2", 120],
      ["3", 60],
      ["4", 0],
      ["5", 60],
    ]);
    expect((await bars("exit-statuses")).map(([label]) => label)).toEqual(["Submitted", "LimitsExceeded"]);
    expect(await page.textContent("#eval-files")).toBe(
      "evaluation: eval/openai__test-model.run1.json, eval/run1/*/report.json (3)",
    );
    const facts = await page.$$eval(".overview dl.facts dt", (dts) =>
      dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]),
    );
    expect(facts).toEqual([
      ["instances", "4"],
      ["resolved", "2/4 (50.0%)"],
      ["model", "openai/test-model"],
      ["config", 'built-in config "swebench_backticks", -c agent.step_limit=5'],
      ["model calls", "16 (every run of this folder)"],
      ["cost", "$1.50 (every run of this folder)"],
      ["run_format", "patchloop-run-1"],
      ["state", "finished"],
      ["started_at", "2025-01-01T00:00:00Z"],
    ]);
    expect(await page.textContent("#run-config summary")).toBe("resolved config (run.json)");
    await page.screenshot({ path: "/tmp/patchloop-inspect-overview.png", fullPage: true });
  });

  test("overview: the run report's tables (patchloop report), one verdict per instance", async () => {
    await page.goto(url);
    await page.waitForSelector("#run-report");
    expect(await page.textContent("#run-report .report-headline")).toBe("2 of 4 resolved (50.0%); 4 graded");
    const tables = await page.$$eval("#run-report table", (ts) =>
      ts.map((t) =>
        [...t.querySelectorAll("tbody tr")].map((tr) =>
          [...tr.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim()),
        ),
      ),
    );
    expect(tables[0]).toEqual([
      ["django/django", "2", "1", "50.0%"],
      ["psf/requests", "1", "1", "100.0%"],
      ["sympy/sympy", "1", "0", "0.0%"],
    ]);
    expect(tables[1]).toEqual([
      ["not submitted", "step limit", "1", "sympy__sympy-20590"],
      ["submitted", "applied; the fix broke tests that passed", "1", "django__django-12345"],
      ["resolved", "resolved", "2", ""],
    ]);
    // the leaderboard section, as `patchloop report` words it: this folder's run.json names no dataset
    expect(await page.textContent("#run-report h3:last-of-type")).toBe("Against the public leaderboard");
    expect(
      await page.$$eval("#run-report .report-leaderboard", (ps) => ps.map((p) => p.textContent)),
    ).toEqual([
      "Snapshot of the public SWE-bench leaderboards of 2025-12-10 (https://github.com/SWE-bench/swe-bench.github.io/blob/f1176b65ae29d14f4f52208b48e3d8cfc972bc17/data/leaderboards.json).",
      "No standing: run.json names no dataset: the snapshot has the SWE-bench Lite and Verified test leaderboards only; if its rows are one of those splits, say which with --leaderboard lite|verified.",
    ]);
    await page.screenshot({ path: "/tmp/patchloop-inspect-report.png", fullPage: true });
  });

  test("overview: sorting and filtering", async () => {
    await page.click('th[data-key="steps"]');
    await page.click('th[data-key="steps"]');
    expect((await tableRows(page)).map((r) => r[0])).toEqual([
      "sympy__sympy-20590",
      "django__django-11099",
      "django__django-12345",
      "psf__requests-2317",
    ]);
    await page.fill("#filter-text", "django");
    expect((await tableRows(page)).map((r) => r[0])).toEqual([
      "django__django-11099",
      "django__django-12345",
    ]);
    await page.selectOption("#filter-resolved", "yes");
    expect((await tableRows(page)).map((r) => r[0])).toEqual(["django__django-11099"]);
    await page.fill("#filter-text", "");
    await page.selectOption("#filter-resolved", "");
    await page.selectOption("#filter-status", "LimitsExceeded");
    expect((await tableRows(page)).map((r) => r[0])).toEqual(["sympy__sympy-20590"]);
    expect(await page.textContent("#row-count")).toBe("1 of 4 shown");
  });

  test("trajectory view: prompts with lengths, steps, flags, tokens, coloured patch, evaluation", async () => {
    await page.goto(url);
    await page.click('#instances tr[data-id="django__django-11099"] a');
    await page.waitForSelector('main h1:has-text("django__django-11099")');
    expect(await page.$$eval("section.step", (s) => s.length)).toBe(3);
    expect(await page.textContent('details.prompt[data-role="system"] summary')).toBe(
      `SYSTEM · ${SYSTEM_PROMPT.length} chars`,
    );
    expect(await page.textContent('details.prompt[data-role="user"] summary')).toBe("USER · 38 chars");
    const step1 = await page.$eval("#step-1", (s) =>
      [...s.querySelectorAll(".block")].map((b) => [b.className, b.querySelector("pre")?.textContent ?? ""]),
    );
    expect(step1).toEqual([
      ["block thought", "Look at the validator."],
      ["block action", "grep -n regex django/core/validators.py"],
      ["block observation", "12: regex = r'^[\\w.@+-]+$'"],
    ]);
    expect(await page.textContent("#step-1 h3 .tokens")).toBe("1,234 prompt / 56 completion tokens");
    expect(await page.$$eval("#step-2 .observation.format-error", (n) => n.length)).toBe(1);
    expect(await page.textContent("#step-2 .observation .badge-bad")).toBe("FORMAT ERROR");
    expect(await page.$$eval("#step-3 .observation.timed-out", (n) => n.length)).toBe(1);
    expect(await page.$$eval("section.step.flagged", (n) => n.map((s) => s.id))).toEqual([
      "step-2",
      "step-3",
    ]);
    expect(
      await page.$$eval("pre.diff span", (spans) => spans.map((s) => [s.className, s.textContent])),
    ).toEqual([
      ["diff-meta", "diff --git a/v.py b/v.py\n"],
      ["diff-meta", "--- a/v.py\n"],
      ["diff-meta", "+++ b/v.py\n"],
      ["diff-hunk", "@@ -1 +1 @@\n"],
      ["diff-del", "-old = 1\n"],
      ["diff-add", "+new = 2\n"],
    ]);
    expect(await page.textContent("#evaluation")).toContain(
      "resolved from eval/run1/django__django-11099/report.json",
    );
    expect(
      await page.$$eval("#evaluation p.eval-files a", (a) =>
        a.map((l) => [l.textContent, l.getAttribute("href")]),
      ),
    ).toEqual([
      ["test output", "/files/eval/run1/django__django-11099/test_output.txt"],
      ["eval log", "/files/eval/run1/django__django-11099/run_instance.log"],
      ["report", "/files/eval/run1/django__django-11099/report.json"],
    ]);
    await page.screenshot({ path: "/tmp/patchloop-inspect-trajectory.png", fullPage: true });
  });

  test("trajectory view: the evaluation's failing tests", async () => {
    await page.goto(`${url}#/t/${encodeURIComponent("sympy__sympy-20590/sympy__sympy-20590.traj.json")}`);
    await page.waitForSelector('main h1:has-text("sympy__sympy-20590")');
    expect(await page.$$eval("#evaluation ul.failing li", (li) => li.map((l) => l.textContent))).toEqual([
      "test_symbol_slots",
    ]);
    expect(await page.textContent("#evaluation")).toContain("FAIL_TO_PASS: 1 failing, 0 passing");
  });

  test("model output with <script> is shown as text; nothing runs", async () => {
    await page.goto(`${url}#/t/${encodeURIComponent("psf__requests-2317/psf__requests-2317.traj.json")}`);
    await page.waitForSelector('main h1:has-text("psf__requests-2317")');
    expect(await page.textContent("#step-1 .thought pre")).toBe(`The page prints ${XSS} verbatim.`);
    expect(await page.textContent("#step-1 .observation pre")).toBe(
      `<html><body>${XSS}<img src=x onerror=alert(2)></body></html>`,
    );
    expect(await page.textContent("pre.diff")).toContain(`+html = "${XSS}"`);
    expect(await page.$$eval("script", (s) => s.map((x) => x.getAttribute("src")))).toEqual(["/app.js"]);
    expect(await page.$$eval("main img", (imgs) => imgs.length)).toBe(0);
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
  });

  test("the back link returns to the overview", async () => {
    await page.click("text=← run overview");
    await page.waitForSelector("#instances tbody tr");
    expect((await tableRows(page)).length).toBe(4);
  });

  test("a single trajectory PATH opens straight to its view", async () => {
    const single = spawnCli([
      "inspect",
      join(dir, "sympy__sympy-20590", "sympy__sympy-20590.traj.json"),
      "--port",
      "0",
    ]);
    try {
      const singleUrl = await waitForUrl(single);
      const other = await context.newPage();
      await other.goto(singleUrl);
      await other.waitForSelector("section.step");
      expect(await other.$$eval("section.step", (s) => s.length)).toBe(5);
      expect(await other.textContent("main h1")).toContain("sympy__sympy-20590");
      expect(await other.$$eval("main a[href='#/']", (a) => a.length)).toBe(0);
      await other.close();
    } finally {
      single.kill("SIGTERM");
    }
  });

  test("the page itself had no script errors", () => {
    expect(pageErrors).toEqual([]);
  });
});

describe.skipIf(missing)("web viewer: attempts side by side, the selected one marked", () => {
  const dir = makeAttemptsFolder();
  let cli: ChildProcess;
  let url: string;
  let context: BrowserContext;
  let profile: string;
  let page: Page;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ cli, url, context, profile, page } = await openViewer(dir, dialogs, pageErrors));
  });
  afterAll(() => closeViewer(dir, { cli, context, profile }));

  /** Each attempt card of an instance's row: [k, classes, head text, the card's lines]. */
  const cards = (id: string) =>
    page.$$eval(`#instances tr[data-id="${id}"] li.attempt`, (lis) =>
      lis.map((li) => [
        li.getAttribute("data-attempt"),
        li.className,
        li.querySelector(".attempt-head")?.textContent,
        [...li.children].slice(1).map((c) => c.textContent),
      ]),
    );

  test("one row per instance; its attempts listed with status, grade, numbers and signals", async () => {
    await page.goto(url);
    await page.waitForSelector("#instances tbody tr");
    expect(
      await page.$$eval("#instances tbody tr", (trs) => trs.map((t) => t.getAttribute("data-id"))),
    ).toEqual(["django__django-11099", "psf__requests-2317", "sympy__sympy-20590"]);
    expect(await cards("django__django-11099")).toEqual([
      [
        "1",
        "attempt",
        "attempt 1",
        [
          "Submitted unresolved",
          "2 steps · $0.0200 · 78 chars",
          "group 1regression: broke 1 (test_a (t.Tests)), kept 3judge: offered as #1",
        ],
      ],
      [
        "2",
        "attempt shown",
        "attempt 2★ selected",
        [
          "Submitted resolved",
          "4 steps · $0.0400 · 113 chars",
          "group 2regression: broke 0, kept 4reproduction: 2/2 passedjudge: offered as #2",
        ],
      ],
      [
        "3",
        "attempt",
        "attempt 3",
        ["LimitsExceeded no patch", "5 steps · $0.0500 · empty", "dropped: empty (the patch is empty)"],
      ],
    ]);
    expect(await cards("sympy__sympy-20590")).toEqual([
      ["1", "attempt", "attempt 1", ["LimitsExceeded no patch", "5 steps · $0.0500 · empty"]],
      ["2", "attempt shown", "attempt 2★ standing", ["Submitted resolved", "3 steps · $0.0300 · 68 chars"]],
    ]);
    expect(await cards("psf__requests-2317")).toEqual([
      ["1", "attempt shown", "attempt 1★ shown", ["Submitted not evaluated", "2 steps · $0.0200 · 68 chars"]],
      ["2", "attempt", "attempt 2", ["Submitted not evaluated", "3 steps · $0.0300 · 68 chars"]],
      [
        "3",
        "attempt",
        "attempt 3",
        [
          "EnvironmentError not evaluated",
          "— steps · $0.0000 · —",
          "no trajectory file (only run.json records this attempt)",
        ],
      ],
    ]);
    expect(await page.textContent('#instances tr[data-id="django__django-11099"] .attempts-total')).toBe(
      "3 attempts, $0.1100 in all",
    );
    // The row shows the selected attempt: its steps, cost and patch size, and its grade.
    expect(
      await page.$$eval('#instances tr[data-id="django__django-11099"] > td', (tds) =>
        tds.slice(1).map((td) => td.textContent),
      ),
    ).toEqual(["Submitted", "resolved", "4", "4,200", "$0.0400", "20.0 s", "113"]);
    expect(await page.getAttribute('#instances tr[data-id="django__django-11099"] td.id > a', "href")).toBe(
      `#/t/${encodeURIComponent("django__django-11099/attempt-2/django__django-11099.traj.json")}`,
    );
    await page.screenshot({ path: "/tmp/patchloop-inspect-attempts.png", fullPage: true });
  });

  test("the selection panel: reason, judge and steps as text; nothing of it runs", async () => {
    const panel = '#instances tr[data-id="django__django-11099"] details.selection';
    expect(await page.textContent(`${panel} summary`)).toBe("selection: attempt 2 selected");
    await page.click(`${panel} summary`);
    expect(await page.textContent(`${panel} p.reason`)).toBe(`attempt 2 broke no test ${SELECTION_XSS}`);
    expect(await page.textContent(`${panel} p.judge`)).toBe("judge chose attempt 2");
    expect(await page.textContent(`${panel} pre.judge-answer`)).toBe(`${SELECTION_XSS} 2`);
    expect(await page.$$eval(`${panel} ol.selection-steps li`, (li) => li.map((l) => l.textContent))).toEqual(
      ["3 candidates, 1 dropped (empty)", "regression: candidate 0 broke 1 test"],
    );
    expect(await page.$$eval("main img", (imgs) => imgs.length)).toBe(0);
    expect(await page.$$eval("script", (s) => s.map((x) => x.getAttribute("src")))).toEqual(["/app.js"]);
    expect(await page.$$eval("details.selection", (d) => d.length)).toBe(1);
    expect(dialogs).toEqual([]);
  });

  test("an attempt links to its trajectory, evaluated by the run that graded that attempt", async () => {
    await page.click('#instances tr[data-id="django__django-11099"] li.attempt[data-attempt="1"] a');
    await page.waitForSelector('main h1:has-text("attempt 1")');
    expect(await page.textContent("main h1")).toBe("django__django-11099 · attempt 1 Submitted unresolved");
    expect(await page.$$eval("section.step", (s) => s.length)).toBe(2);
    expect(await page.textContent("#evaluation p")).toBe(
      "unresolved from eval/patchloop-run-attempt-1/django__django-11099/report.json",
    );
    await page.goto(
      `${url}#/t/${encodeURIComponent("django__django-11099/attempt-3/django__django-11099.traj.json")}`,
    );
    await page.waitForSelector('main h1:has-text("attempt 3")');
    expect(await page.textContent("#evaluation p")).toBe(
      `No evaluation report covers this instance: ${attemptEvalSearchText(basename(dir), 3)}`,
    );
    expect(pageErrors).toEqual([]);
  });
});
