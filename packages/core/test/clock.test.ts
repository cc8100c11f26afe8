import { describe, expect, it } from "vitest";
import { isoText, nowIso } from "../src/clock.js";

describe("isoText", () => {
  it("gives toISOString's text for every date, the same millisecond twice or not", () => {
    const times = [0, 1, 1, 1_764_000_000_123, 1_764_000_000_123, 1_764_000_000_124, -1, 8.64e15, 1, 0.5, 0.9];
    for (const ms of times) expect(isoText(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it("throws for an invalid date, as toISOString does, and goes on right after", () => {
    expect(isoText(new Date(5))).toBe("1970-01-01T00:00:00.005Z");
    expect(() => isoText(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoText(new Date(Number.NaN))).toThrow(RangeError);
    expect(isoText(new Date(5))).toBe("1970-01-01T00:00:00.005Z");
  });

  it("reads a fake clock", () => {
    const clock = { now: () => new Date("2026-11-28T12:00:00.250Z") };
    expect(nowIso(clock)).toBe("2026-11-28T12:00:00.250Z");
  });
});
