import { describe, expect, it } from "vitest";
import { startedDeliveries, startLine } from "../../src/distributed/protocol.js";
import { deliveryProblem, readProgress, readResult } from "../../src/distributed/result-check.js";
import { signature } from "../../src/distributed/signing.js";

const SECRET = Buffer.from("a-secret-of-32-characters-length");
const RUN = "swebench-42-abc";
const JOB = `${RUN}.django__django-11099`;
const DELIVERY = `${JOB}.0a1b2c3d4e5f`;
const WORKER = { id: "gpu1:4242:mx1", host: "gpu1", pid: 4242 };

const result = () => ({
  outcome: {
    instance_id: "django__django-11099",
    exit_status: "Submitted" as const,
    exit_message: "submitted",
    patch_bytes: 5,
    api_calls: 3,
    cost: 0.25,
    prompt_tokens: 300,
    completion_tokens: 30,
    started_at: "2026-01-01T00:00:00.000Z",
    ended_at: "2026-01-01T00:01:00.000Z",
    environment_seconds: 1.5,
    agent_seconds: 50,
    seconds: 60,
    patch: "diff\n",
    worker: WORKER.id,
    delivery: DELIVERY,
  },
  files: { "django__django-11099.traj.json": "{}\n" },
  worker: WORKER,
  replicas: { "http://127.0.0.1:8000/v1": { requests: 3, failures: 0 } },
});

describe("the check of a result taken from a run's results queue", () => {
  it("a worker's result passes as it was sent, tagged as an outcome", () => {
    const job = { run: RUN, result: result() };
    expect(readResult(job, RUN, null, null)).toEqual({
      ok: true,
      message: { kind: "outcome", run: RUN, report: result() },
    });
  });

  it("a worker's refusal passes tagged as one; a malformed one is dropped", () => {
    const refusal = { instance_id: "django__django-11099", job: JOB, worker: WORKER, reason: "no clone" };
    expect(readResult({ run: RUN, refusal }, RUN, null, null)).toEqual({
      ok: true,
      message: { kind: "refused", run: RUN, refusal },
    });
    expect(readResult({ run: RUN, refusal: { ...refusal, instance_id: "../x" } }, RUN, null, null)).toEqual({
      ok: false,
      problem:
        "it is not a result of this patchloop (refusal.instance_id: a SWE-bench instance id (owner__name-NUMBER))",
    });
    expect(readResult({ run: RUN, refusal, result: result() }, RUN, null, null)).toEqual({
      ok: false,
      problem: 'it is not a result of this patchloop (Unrecognized key: "refusal")',
    });
    const sig = signature(SECRET, "refusal", { run: RUN, refusal });
    expect(readResult({ run: RUN, refusal, sig }, RUN, SECRET, "PL_SECRET")).toMatchObject({ ok: true });
    // a result's signature does not pass for a refusal
    const asResult = signature(SECRET, "result", { run: RUN, refusal });
    expect(readResult({ run: RUN, refusal, sig: asResult }, RUN, SECRET, "PL_SECRET")).toMatchObject({
      ok: false,
    });
  });

  it("a malformed result is dropped with where it is wrong, never used", () => {
    const cases: [unknown, string][] = [
      [null, "Invalid input: expected object, received null"],
      [
        { run: RUN, result: { ...result(), outcome: { ...result().outcome, cost: "lots" } } },
        "result.outcome.cost: Invalid input: expected number, received string",
      ],
      [
        { run: RUN, result: { ...result(), outcome: { ...result().outcome, api_calls: -1 } } },
        "result.outcome.api_calls: Too small: expected number to be >=0",
      ],
      [
        { run: RUN, result: { ...result(), outcome: { ...result().outcome, seconds: Number.NaN } } },
        "result.outcome.seconds: Invalid input: expected number, received NaN",
      ],
      [
        { run: RUN, result: { ...result(), files: { "x.traj.json": 42 } } },
        "result.files.x.traj.json: Invalid input: expected string, received number",
      ],
      [
        { run: RUN, result: { ...result(), outcome: { ...result().outcome, exit_status: "Resolved" } } },
        'result.outcome.exit_status: Invalid option: expected one of "Submitted"|"LimitsExceeded"|"TimeExceeded"|"ContextExceeded"|"RepeatedFormatError"|"ModelError"|"EnvironmentError"|"Interrupted"',
      ],
      [
        { run: RUN, result: { ...result(), outcome: { ...result().outcome, instance_id: "../x" } } },
        "result.outcome.instance_id: a SWE-bench instance id (owner__name-NUMBER)",
      ],
      [
        { run: RUN, result: { ...result(), outcome: { ...result().outcome, model_error_runs: 99 } } },
        'result.outcome: Unrecognized key: "model_error_runs"',
      ],
      [
        { run: RUN, result: { ...result(), worker: { ...WORKER, host: "gpu1\nFATAL forged line" } } },
        "result.worker.host: 1 to 300 characters, no control characters",
      ],
      [
        { run: RUN, result: { ...result(), outcome: { ...result().outcome, delivery: "x y" } } },
        "result.outcome.delivery: a delivery id (<job id>.<hex>)",
      ],
    ];
    for (const [data, where] of cases)
      expect(readResult(data, RUN, null, null)).toEqual({
        ok: false,
        problem: `it is not a result of this patchloop (${where})`,
      });
  });

  it("a result of another run is dropped", () => {
    expect(readResult({ run: "other", result: result() }, RUN, null, null)).toEqual({
      ok: false,
      problem: `it belongs to run "other", not ${RUN}`,
    });
  });

  it("with a secret: only a result signed with it passes", () => {
    const r = result();
    const sig = signature(SECRET, "result", { run: RUN, result: r });
    expect(readResult({ run: RUN, result: r, sig }, RUN, SECRET, "PL_SECRET")).toEqual({
      ok: true,
      message: { kind: "outcome", run: RUN, report: r },
    });
    expect(readResult({ run: RUN, result: r }, RUN, SECRET, "PL_SECRET")).toEqual({
      ok: false,
      problem:
        "it carries no signature, and this run accepts only signed results (run.queue.secret_env PL_SECRET)",
    });
    const forged = { ...r, outcome: { ...r.outcome, patch: "forged\n" } };
    for (const bad of [
      { run: RUN, result: forged, sig },
      { run: RUN, result: r, sig: signature(SECRET, "job", { run: RUN, result: r }) },
    ])
      expect(readResult(bad, RUN, SECRET, "PL_SECRET")).toEqual({
        ok: false,
        problem:
          "its signature does not match (run.queue.secret_env PL_SECRET): it was not made by a worker with " +
          "this run's secret, or was changed since",
      });
  });

  it("a result's delivery must be one a worker logged on the instance's job", () => {
    const logs = [startLine(DELIVERY, WORKER), "something else", startLine(`${JOB}.ffffffffffff`, WORKER)];
    expect(logs[0]).toBe(`start ${DELIVERY} on gpu1:4242:mx1`);
    expect(startedDeliveries(logs)).toEqual([DELIVERY, `${JOB}.ffffffffffff`]);
    expect(deliveryProblem(DELIVERY, JOB, startedDeliveries(logs))).toBe(null);
    expect(deliveryProblem(`${JOB}.000000000000`, JOB, startedDeliveries(logs))).toBe(
      "no worker started that delivery of its job",
    );
    // A logged delivery of another job does not count for this one.
    expect(deliveryProblem(DELIVERY, `${RUN}.other__repo-1`, [DELIVERY])).toBe(
      "no worker started that delivery of its job",
    );
  });

  it("progress: the start notice and the agent's model_call and model_retry events pass as they are; anything else is ignored", () => {
    const call = {
      type: "model_call",
      step: 1,
      usage: { prompt_tokens: 100, completion_tokens: 10, cached_tokens: 64 },
      cost: 0.01,
      tries: 1,
    };
    const retry = {
      type: "model_retry",
      step: 2,
      tryNumber: 1,
      maxTries: 5,
      waitSeconds: 2.5,
      reason: "HTTP 503",
    };
    const start = { type: "start", worker: WORKER, delivery: DELIVERY };
    for (const p of [call, retry, start]) expect(readProgress(p)).toEqual(p);
    for (const bad of [
      null,
      5,
      { type: "model_call" },
      { ...call, cost: -1e9 },
      { ...call, cost: "1" },
      { ...call, usage: { prompt_tokens: 1 } },
      { ...call, extra: 1 },
      { type: "message", step: 1, message: { role: "user", content: "x" } },
      { type: "start", worker: null, delivery: "x" },
      { t: "call", step: 1, prompt: 100, completion: 10, cost: 0.01, attempts: 1 },
    ])
      expect(readProgress(bad)).toBe(null);
  });
});
