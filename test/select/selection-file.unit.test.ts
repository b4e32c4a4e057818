import { describe, expect, it } from "vitest";
import type { SelectionRecord } from "../../src/select/record.js";
import { parseSelectionJsonl } from "../../src/select/selection-file.js";

const EXPECTED =
  "expected one JSON object per line as `patchloop select` writes it ({instance_id, candidates, selected, reason, ...})";

const record: SelectionRecord = {
  instance_id: "a__b-1",
  candidates: [
    {
      index: 0,
      source: "attempt-1",
      attempt: 1,
      patch_sha256: "abc",
      status: "patch",
      regression: { tested: true, broke: ["t1"], kept: 3, cached: false },
    },
    { index: 1, source: "attempt-2", patch_sha256: null, status: "empty", dropped: "no patch" },
  ],
  groups: [{ group: 1, members: [0], representative: 0 }],
  judge: { offered: [{ number: 1, candidate: 0 }], answer: "1", chose: 0 },
  selected: 0,
  selected_source: "attempt-1",
  reason: "single candidate",
  steps: ["dropped attempt-2: empty"],
  problems: [],
  seconds: 1.5,
};

describe("selection.jsonl's reader", () => {
  it("reads the lines select-all.ts writes: the fields its readers use, a later line for an id winning", () => {
    const later = { ...record, selected: null, reason: "again" };
    const read = parseSelectionJsonl(`${JSON.stringify(record)}\n\n${JSON.stringify(later)}\n`);
    expect(read.problems).toEqual([]);
    expect([...read.byId.keys()]).toEqual(["a__b-1"]);
    expect(read.byId.get("a__b-1")).toEqual({
      instance_id: "a__b-1",
      candidates: [
        {
          index: 0,
          source: "attempt-1",
          status: "patch",
          regression: { tested: true, broke: ["t1"], kept: 3 },
        },
        { index: 1, source: "attempt-2", status: "empty", dropped: "no patch" },
      ],
      judge: { offered: [{ number: 1, candidate: 0 }], answer: "1", chose: 0 },
      selected: null,
      reason: "again",
      steps: ["dropped attempt-2: empty"],
      problems: [],
    });
  });

  it("an older line without steps and problems reads with none", () => {
    const { steps: _s, problems: _p, ...old } = record;
    expect(parseSelectionJsonl(JSON.stringify(old)).byId.get("a__b-1")).toMatchObject({
      steps: [],
      problems: [],
    });
  });

  it("each line that is not a selection line is a problem naming it; the other lines still count", () => {
    const cut = JSON.stringify(record).slice(0, 30);
    const lines = [
      cut,
      JSON.stringify({ ...record, instance_id: "" }),
      JSON.stringify({ ...record, selected: "0", candidates: [{ index: -1, source: "x", status: "patch" }] }),
      JSON.stringify([]),
      JSON.stringify({ ...record, instance_id: "a__b-2" }),
    ];
    const read = parseSelectionJsonl(lines.join("\n"), "sel.jsonl");
    expect([...read.byId.keys()]).toEqual(["a__b-2"]);
    let json = "";
    try {
      JSON.parse(cut);
    } catch (err) {
      json = (err as Error).message;
    }
    expect(read.problems).toEqual([
      `sel.jsonl line 1: not valid JSON (${json}); ${EXPECTED}`,
      `sel.jsonl line 2: instance_id: Too small: expected string to have >=1 characters; ${EXPECTED}`,
      `sel.jsonl line 3: candidates.0.index: Too small: expected number to be >=0; selected: Invalid input: expected number, received string; ${EXPECTED}`,
      `sel.jsonl line 4: (top level): Invalid input: expected object, received array; ${EXPECTED}`,
    ]);
  });
});
