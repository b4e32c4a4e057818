import { describe, expect, it } from "vitest";
import { listScheduleMs } from "../../bench/throughput.js";

describe("the throughput bench's ideal (list scheduling)", () => {
  it("equal durations make ceil(n / workers) waves", () => {
    expect(listScheduleMs(Array(200).fill(700), 64)).toBe(4 * 700);
    expect(listScheduleMs(Array(64).fill(700), 64)).toBe(700);
    expect(listScheduleMs(Array(3).fill(5), 1)).toBe(15);
  });

  it("uneven durations start on the first slot to come free, in order", () => {
    // Slots: [10, 1] -> 3rd (5) goes to slot 2 (free at 1) -> [10, 6] -> 4th (5) to slot 2 -> [10, 11].
    expect(listScheduleMs([10, 1, 5, 5], 2)).toBe(11);
    expect(listScheduleMs([], 4)).toBe(0);
  });
});
