import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { waitFor, waitUntil } from "./wait-for.js";

describe("the tests' waits (on vitest's fake timers)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waitUntil resolves at the first look where the check holds, looking every everyMs", async () => {
    let looks = 0;
    const waited = waitUntil("the third look", () => ++looks === 3, { everyMs: 100 });
    await vi.advanceTimersByTimeAsync(199);
    expect(looks).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    await expect(waited).resolves.toBeUndefined();
    expect(looks).toBe(3);
  });

  it("waitUntil rejects naming what it waited for, how long, and what `shows` says", async () => {
    const waited = waitUntil("the file appears", () => false, { ms: 1000, shows: () => "the screen" });
    const failed = expect(waited).rejects.toThrow(
      "timed out after 1000 ms waiting until the file appears; it shows:\nthe screen",
    );
    await vi.advanceTimersByTimeAsync(1100);
    await failed;
  });

  it("waitUntil takes an async check and ends with the error a check throws", async () => {
    let ready = false;
    const waited = waitUntil("ready", async () => ready);
    await vi.advanceTimersByTimeAsync(120);
    ready = true;
    await vi.advanceTimersByTimeAsync(50);
    await expect(waited).resolves.toBeUndefined();
    await expect(
      waitUntil("never", () => {
        throw new Error("ENOENT: the journal is gone");
      }),
    ).rejects.toThrow("ENOENT: the journal is gone");
  });

  it("waitFor resolves with whether the check held within the time", async () => {
    let n = 0;
    const held = waitFor(() => ++n >= 2, 1000);
    const never = waitFor(() => false, 300);
    await vi.advanceTimersByTimeAsync(400);
    expect([await held, await never]).toEqual([true, false]);
  });
});
