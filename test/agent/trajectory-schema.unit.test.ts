import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { journalPathOf, readTrajectoryFile, readTrajectoryJson } from "../../src/agent/trajectory-journal.js";
import {
  infoSummary,
  parseTrajectory,
  trajectorySummary,
  withInfoFields,
} from "../../src/agent/trajectory-schema.js";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { readPriorState } from "../../src/run-folder/resume.js";

const FORM = 'expected a patchloop trajectory ({trajectory_format: "patchloop-1", info, messages})';

function written(): Trajectory {
  return {
    trajectory_format: "patchloop-1",
    info: {
      exit_status: "Submitted",
      exit_message: "submitted",
      submission: "diff --git a/x b/x",
      model_stats: { api_calls: 2, prompt_tokens: 10, completion_tokens: 5, cost: 0.5 },
      config: { model: { model_name: "m" } },
      versions: { patchloop: "1.0.0" },
      timing: { started_at: "2026-01-01T00:00:00Z", ended_at: "2026-01-01T00:01:00Z", wall_seconds: 60 },
      model_error: { kind: "retries_exhausted", status: 503 },
    },
    messages: [
      { role: "system", content: "s" },
      { role: "user", content: "u" },
    ],
  };
}

describe("the trajectory's full form", () => {
  it("a trajectory as the writer leaves it reads back as it is", () => {
    expect(parseTrajectory(written(), "t.json")).toEqual({ ok: true, trajectory: written() });
  });

  it("each kind of broken trajectory is a problem naming the file and the field", () => {
    expect(parseTrajectory([], "t.json")).toEqual({
      ok: false,
      problem:
        "t.json is not a patchloop-1 trajectory (trajectory_format missing): written by another tool or an older patchloop",
    });
    expect(parseTrajectory({ ...written(), trajectory_format: "mini-1" }, "t.json")).toMatchObject({
      problem: expect.stringContaining('(trajectory_format "mini-1")'),
    });
    const t = written();
    expect(parseTrajectory({ ...t, info: { ...t.info, exit_status: "Done" } }, "t.json")).toEqual({
      ok: false,
      problem: `t.json: info.exit_status: Invalid option: expected one of "Submitted"|"LimitsExceeded"|"TimeExceeded"|"ContextExceeded"|"RepeatedFormatError"|"ModelError"|"EnvironmentError"|"Interrupted"; ${FORM}`,
    });
    expect(parseTrajectory({ ...t, messages: [{ role: "robot", content: "x" }] }, "t.json")).toEqual({
      ok: false,
      problem: `t.json: messages.0: expected a chat message {role: system|user|assistant|tool, content: text, parts or null}; ${FORM}`,
    });
    const { model_stats: _, ...noStats } = t.info;
    expect(parseTrajectory({ ...t, info: noStats }, "t.json")).toEqual({
      ok: false,
      problem: `t.json: info.model_stats: Invalid input: expected object, received undefined; ${FORM}`,
    });
  });

  it("readTrajectoryFile applies the journal and checks the result; readTrajectoryJson reads any format", async () => {
    const dir = mkdtempSync(join(tmpdir(), "traj-"));
    const path = join(dir, "a.traj.json");
    const t = written();
    writeFileSync(path, JSON.stringify(t));
    const info = { ...t.info, exit_status: null };
    const line = { base: 2, messages: [{ role: "assistant", content: "a" }], info };
    writeFileSync(journalPathOf(path), `${JSON.stringify(line)}\n{"base": 3, "mess`);
    const read = await readTrajectoryFile(path);
    expect(read.journal).toEqual({ applied: 1, dropped: 1 });
    expect(read.trajectory.messages).toHaveLength(3);
    expect(read.trajectory.info.exit_status).toBeNull();
    // a journal line whose message is not one is not applied (the reading stops there)
    writeFileSync(journalPathOf(path), `${JSON.stringify({ ...line, messages: [{ role: 1 }] })}\n`);
    expect((await readTrajectoryFile(path)).journal).toEqual({ applied: 0, dropped: 1 });
    const other = join(dir, "b.traj.json");
    writeFileSync(other, JSON.stringify([{ role: "user", content: "x" }]));
    expect((await readTrajectoryJson(other)).doc).toEqual([{ role: "user", content: "x" }]);
    await expect(readTrajectoryFile(other)).rejects.toThrow(/b\.traj\.json is not a patchloop-1 trajectory/);
    writeFileSync(other, "{");
    await expect(readTrajectoryJson(other)).rejects.toThrow(/b\.traj\.json is not valid JSON \(/);
  });
});

describe("the trajectory's summary (tolerant readers)", () => {
  it("each field when it has the written type, else absent; never a failure", () => {
    expect(infoSummary(written())).toEqual({
      exit_status: "Submitted",
      exit_message: "submitted",
      submission: "diff --git a/x b/x",
      model_stats: { api_calls: 2, prompt_tokens: 10, completion_tokens: 5, cost: 0.5 },
      model_error: { kind: "retries_exhausted", status: 503 },
      timing: { wall_seconds: 60 },
    });
    expect(
      infoSummary({
        info: { exit_status: 3, submission: null, model_stats: { api_calls: 4 }, model_error: {} },
      }),
    ).toEqual({ model_stats: { api_calls: 4 } });
    expect(infoSummary("x")).toEqual({});
    expect(trajectorySummary({ info: {} }, "t.json")).toMatchObject({ ok: false });
    expect(trajectorySummary({ trajectory_format: "patchloop-1" }, "t.json")).toEqual({
      ok: true,
      summary: {},
    });
  });

  it("resume reads an older or damaged trajectory's fields as before", async () => {
    const dir = mkdtempSync(join(tmpdir(), "resume-"));
    const write = (doc: unknown) => {
      const p = join(dir, "x__y-1");
      mkdirSync(p, { recursive: true });
      writeFileSync(join(p, "x__y-1.traj.json"), typeof doc === "string" ? doc : JSON.stringify(doc));
    };
    write({
      info: {
        exit_status: "ModelError",
        model_error: { kind: "retries_exhausted" },
        model_stats: { cost: 2 },
      },
    });
    expect(await readPriorState(dir, "x__y-1")).toEqual({
      status: "ModelError",
      submission: "",
      stats: { api_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost: 2 },
      modelError: { kind: "retries_exhausted" },
    });
    write({ info: { exit_status: "Whatever", submission: 7 } });
    expect(await readPriorState(dir, "x__y-1")).toMatchObject({ status: null, submission: "" });
    write("{oops");
    expect((await readPriorState(dir, "x__y-1")).problem).toMatch(/^unreadable trajectory: /);
  });

  it("withInfoFields sets fields of info and keeps the rest; no JSON object with info: null", () => {
    const text = withInfoFields(JSON.stringify({ a: 1, info: { b: 2 }, messages: [] }), { infra_retries: 1 });
    expect(JSON.parse(text ?? "")).toEqual({ a: 1, info: { b: 2, infra_retries: 1 }, messages: [] });
    expect(withInfoFields("{", { infra_retries: 1 })).toBeNull();
    expect(withInfoFields("[]", { infra_retries: 1 })).toBeNull();
  });
});
