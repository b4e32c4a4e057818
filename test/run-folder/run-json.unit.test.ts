import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRunJson, readRunJson } from "../../src/run-folder/run-json.js";

const LINE = "expected {exit_status, api_calls, cost, ...} as patchloop writes it; the line is left out";
const FORM = "expected run.json as patchloop writes it ({run_format, state, config, info, instances, ...})";

const written = {
  run_format: "patchloop-run-1",
  state: "finished",
  started_at: "2026-01-01T00:00:00Z",
  ended_at: "2026-01-01T01:00:00Z",
  stopped_by: null,
  versions: { patchloop: "1.0.0" },
  config: { model: { model_name: "m" } },
  info: { argv: ["swebench", "-o", "out"], cwd: "/w", dataset: { subset: "lite", split: "test" } },
  selected: 2,
  skipped: 0,
  instances: {
    "a__b-1": {
      exit_status: "Submitted",
      exit_message: "",
      api_calls: 3,
      cost: 0.1,
      seconds: 9,
      standing_attempt: 2,
    },
  },
  attempts: { "a__b-1/attempt-2": { exit_status: "Submitted", api_calls: 3, cost: 0.1 } },
  stopped_attempts: { "a__b-1/attempt-3": "agreement" },
};

describe("run.json's reader", () => {
  it("reads a file as RunRecord writes it, every part typed", () => {
    const read = parseRunJson(JSON.stringify(written), "r.json");
    expect(read).toEqual({ ok: true, run: written, problems: [] });
  });

  it("an older file: the fields it lacks are absent, a line without calls or cost still a line", () => {
    const old = { config: {}, instances: { "a__b-1": { exit_status: "LimitsExceeded" } }, model: "gpt" };
    expect(parseRunJson(JSON.stringify(old), "r.json")).toEqual({
      ok: true,
      run: { ...old, info: {} },
      problems: [],
    });
    expect(parseRunJson("{}", "r.json")).toEqual({ ok: true, run: { info: {} }, problems: [] });
  });

  it("a field of info of the wrong type is read as absent (each reader has its default)", () => {
    const doc = {
      info: { argv: "swebench", cwd: 3, dataset: { split: "test" }, selection: { slice: 1, shuffle: true } },
    };
    const read = parseRunJson(JSON.stringify(doc), "r.json");
    expect(read.ok && read.run.info).toEqual({ selection: { shuffle: true } });
  });

  it("a line that is not one is left out with a problem naming the file, the line and the field", () => {
    const doc = {
      instances: {
        "a__b-1": { exit_status: "Done", api_calls: 1, cost: 0 },
        "a__b-2": { exit_status: "Submitted", api_calls: "3" },
        "a__b-3": { exit_status: "Submitted", standing_attempt: 0 },
        "a__b-4": { exit_status: "Submitted" },
      },
      attempts: { "a__b-1/attempt-1": 5 },
      stopped_attempts: { "a__b-1/attempt-2": false },
    };
    const read = parseRunJson(JSON.stringify(doc), "r.json");
    expect(read).toEqual({
      ok: true,
      run: {
        info: {},
        instances: { "a__b-4": { exit_status: "Submitted" } },
        attempts: {},
        stopped_attempts: {},
      },
      problems: [
        `r.json: stopped_attempts["a__b-1/attempt-2"] is not a text (received false); left out`,
        `r.json: instances["a__b-1"] exit_status: Invalid option: expected one of "Submitted"|"LimitsExceeded"|"TimeExceeded"|"ContextExceeded"|"RepeatedFormatError"|"ModelError"|"EnvironmentError"|"Interrupted"; received {"exit_status":"Done","api_calls":1,"cost":0}; ${LINE}`,
        `r.json: instances["a__b-2"] api_calls: Invalid input: expected number, received string; received {"exit_status":"Submitted","api_calls":"3"}; ${LINE}`,
        `r.json: instances["a__b-3"] standing_attempt: Too small: expected number to be >=1; received {"exit_status":"Submitted","standing_attempt":0}; ${LINE}`,
        `r.json: attempts["a__b-1/attempt-1"] (top level): Invalid input: expected object, received number; received 5; ${LINE}`,
      ],
    });
  });

  it("an older file's queue delivery under `attempt` is read as `delivery`, the old key dropped", () => {
    const old = {
      instances: {
        "a__b-1": {
          exit_status: "Submitted",
          api_calls: 3,
          cost: 0.1,
          worker: "h:1:x",
          attempt: "r.a__b-1.0a1b2c",
        },
        "a__b-2": { exit_status: "Submitted", attempt: "r.a__b-2.old", delivery: "r.a__b-2.new" },
        "a__b-3": { exit_status: "Submitted", attempt: 2 },
      },
      attempts: { "a__b-1/attempt-1": { exit_status: "Interrupted", attempt: "r.a__b-1%2Fattempt-1.ff00" } },
    };
    const dir = mkdtempSync(join(tmpdir(), "runjson-"));
    writeFileSync(join(dir, "run.json"), JSON.stringify(old));
    expect(readRunJson(join(dir, "run.json"))).toStrictEqual({
      ok: true,
      run: {
        info: {},
        instances: {
          "a__b-1": {
            exit_status: "Submitted",
            api_calls: 3,
            cost: 0.1,
            worker: "h:1:x",
            delivery: "r.a__b-1.0a1b2c",
          },
          "a__b-2": { exit_status: "Submitted", delivery: "r.a__b-2.new" },
          "a__b-3": { exit_status: "Submitted", attempt: 2 },
        },
        attempts: {
          "a__b-1/attempt-1": { exit_status: "Interrupted", delivery: "r.a__b-1%2Fattempt-1.ff00" },
        },
      },
      problems: [],
    });
  });

  it("a file that is not run.json: why, and what was expected", () => {
    expect(parseRunJson("[]", "r.json")).toEqual({
      ok: false,
      missing: false,
      problem: `r.json: got a list; ${FORM}`,
    });
    expect(parseRunJson(JSON.stringify({ instances: [] }), "r.json")).toEqual({
      ok: false,
      missing: false,
      problem: `r.json: instances: Invalid input: expected record, received array; ${FORM}`,
    });
    expect(parseRunJson("{", "r.json")).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^r\.json is not valid JSON \(/),
    });
    const dir = mkdtempSync(join(tmpdir(), "runjson-"));
    expect(readRunJson(join(dir, "run.json"))).toMatchObject({ ok: false, missing: true });
    writeFileSync(join(dir, "run.json"), JSON.stringify(written));
    expect(readRunJson(join(dir, "run.json"))).toMatchObject({ ok: true, problems: [] });
  });
});
