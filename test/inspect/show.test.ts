import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { normalizeTrajectory } from "../../src/inspect/normalize.js";
import { clipText, renderTrajectoryText } from "../../src/inspect/terminal-render.js";
import { TRAJECTORIES } from "../support/data.js";
import { runCli } from "./cli-driver.js";
import { INSTANCES, makeRunFolder, patchloopTrajectory } from "./run-fixture.js";

const view = () => normalizeTrajectory(patchloopTrajectory(INSTANCES[0]), "x.traj.json");

const EXPECTED = [
  "django__django-11099  [Submitted]  (patchloop-1)",
  "model openai/test-model · 3 steps · 3,234 prompt / 156 completion tokens · cost $0.2500 · wall 42.5 s",
  "",
  "=== SYSTEM (66 chars) ===",
  "You are a careful software engineer. Reply with one ```bash block.",
  "",
  "=== USER (38 chars) ===",
  "Fix the issue in django__django-11099.",
  "",
  "=== STEP 1 · 1,234 prompt / 56 completion tokens ===",
  "THOUGHT:",
  "Look at the validator.",
  "ACTION:",
  "grep -n regex django/core/validators.py",
  "OBSERVATION (returncode 0):",
  "12: regex = r'^[\\w.@+-]+$'",
  "",
  "=== STEP 2 · 1,000 prompt / 50 completion tokens ===",
  "THOUGHT:",
  "I forgot the block.",
  "ACTION: (none parsed)",
  "OBSERVATION [FORMAT ERROR]:",
  "Format error: reply with exactly one ```bash block.",
  "",
  "=== STEP 3 · 1,000 prompt / 50 completion tokens ===",
  "THOUGHT:",
  "Run the slow tests.",
  "ACTION:",
  "python -m pytest tests",
  "OBSERVATION (returncode -1) [TIMED OUT]:",
  "partial output",
  "",
  "=== PATCH (77 chars) ===",
  "diff --git a/v.py b/v.py",
  "--- a/v.py",
  "+++ b/v.py",
  "@@ -1 +1 @@",
  "-old = 1",
  "+new = 2",
  "",
];

describe("show: terminal rendering", () => {
  test("plain mode, exact lines", () => {
    expect(renderTrajectoryText(view(), { color: false, full: false }).split("\n")).toEqual(EXPECTED);
  });

  test("colour mode wraps the same text in ANSI codes", () => {
    const coloured = renderTrajectoryText(view(), { color: true, full: false });
    expect(coloured).toContain("\x1b[31m-old = 1\x1b[39m");
    expect(coloured).toContain("\x1b[32m+new = 2\x1b[39m");
    expect(coloured.replace(/\x1b\[\d+m/g, "").split("\n")).toEqual(EXPECTED);
  });

  test("long observations are clipped with a note; --full shows them whole", () => {
    const v = view();
    const long = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n");
    v.steps[0].observations[0].text = long;
    const clipped = renderTrajectoryText(v, { color: false, full: false }).split("\n");
    const start = clipped.indexOf("line 1");
    expect(clipped.slice(start, start + 32)).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `line ${i + 1}`),
      "[... 70 lines clipped; --full shows all ...]",
      ...Array.from({ length: 10 }, (_, i) => `line ${i + 91}`),
      "",
    ]);
    const full = renderTrajectoryText(v, { color: false, full: true });
    expect(full).toContain(long);
    expect(full).not.toContain("clipped");
  });

  test("a long single line is cut by characters", () => {
    expect(clipText("x".repeat(7000), false)).toEqual({
      text: `${"x".repeat(6000)}\n[... 1000 characters clipped; --full shows all ...]`,
      note: "1000 characters clipped",
    });
  });

  test("escape sequences from model output never reach the terminal", () => {
    const v = view();
    v.steps[0].observations[0].text = "evil \x1b]0;owned\x07 title\r\nnext";
    const out = renderTrajectoryText(v, { color: false, full: false });
    expect(out).toContain("evil ^[]0;owned^G title\nnext");
    expect(out).not.toContain("\x1b");
  });
});

describe("patchloop show (CLI from dist/)", () => {
  test("renders a SWE-agent .traj, plain when not a TTY", async () => {
    const res = await runCli(["show", join(TRAJECTORIES, "sweagent.gpt4.test-repo-i1.traj")]);
    expect(res.code).toBe(0);
    const lines = res.stdout.split("\n");
    expect(lines[0]).toBe("sweagent.gpt4.test-repo-i1  [submitted]  (swe-agent)");
    expect(lines[1]).toBe(
      "model ? · 5 steps · 52,861 prompt / 326 completion tokens · cost $0.5384 · wall ?",
    );
    expect(lines).toContain("=== SYSTEM (4,877 chars) ===");
    expect(lines).toContain("=== USER (demonstration) (30,977 chars) ===");
    expect(lines).toContain("[... 611 lines clipped; --full shows all ...]");
    expect(res.stdout).not.toContain("\x1b[");
  });

  test("--color forces colour", async () => {
    const res = await runCli(["show", "--color", join(TRAJECTORIES, "miniswe.local.traj.json")]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("\x1b[1m\x1b[36m=== STEP 1 ===\x1b[39m\x1b[22m");
  });

  test("a file that is not a trajectory: exit 2 and a message naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "patchloop-show-"));
    const file = join(dir, "notes.json");
    writeFileSync(file, '{"hello": "world"}');
    const res = await runCli(["show", file]);
    rmSync(dir, { recursive: true, force: true });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      `patchloop show: ${file}: got an object with keys hello; expected a patchloop trajectory`,
    );
    expect(res.stdout).toBe("");
  });

  test("a folder: exit 2 naming the trajectories in it and inspect, not EISDIR", async () => {
    const run = makeRunFolder();
    const empty = mkdtempSync(join(tmpdir(), "patchloop-show-"));
    try {
      const res = await runCli(["show", run]);
      expect([res.code, res.stdout]).toEqual([2, ""]);
      const [a, b, c] = INSTANCES.map((i) => join(run, i.id, `${i.id}.traj.json`)).sort();
      expect(res.stderr).toBe(
        `patchloop show: ${run} is a folder; show takes one trajectory file, such as one of the ` +
          `${INSTANCES.length} trajectories in it: ${a}, ${b}, ${c}${INSTANCES.length > 3 ? ` and ${INSTANCES.length - 3} more` : ""}; ` +
          `to browse a whole run folder: patchloop inspect ${run}\n`,
      );
      const none = await runCli(["show", empty]);
      expect([none.code, none.stderr]).toEqual([
        2,
        `patchloop show: ${empty} is a folder, and holds no trajectory (*.traj.json, *.traj); show takes ` +
          `one trajectory file; to browse a whole run folder: patchloop inspect ${empty}\n`,
      ]);
    } finally {
      rmSync(run, { recursive: true, force: true });
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
