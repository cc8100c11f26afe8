import { describe, expect, it } from "vitest";
import { decideCatchUp } from "../../src/scheduler/catch-up.js";
import { isSlaMissed, slaWindow } from "../../src/scheduler/sla.js";

const d = (s: string) => new Date(s);

describe("catch-up decision", () => {
  const base = { schedule: "0 6 * * *", tz: "UTC", since: d("2026-01-01T00:00:00Z") };

  it("runs once for a slot missed less than 24 hours ago", () => {
    expect(decideCatchUp({ ...base, now: d("2026-11-22T10:00:00Z"), lastRunAt: d("2026-11-21T06:00:01Z") })).toEqual({
      action: "run",
      slot: d("2026-11-22T06:00:00Z"),
    });
  });

  it("does nothing when the slot already ran", () => {
    expect(
      decideCatchUp({ ...base, now: d("2026-11-22T10:00:00Z"), lastRunAt: d("2026-11-22T06:00:00Z") }).action,
    ).toBe("none");
  });

  it("skips a miss 24 hours old or older", () => {
    const decision = decideCatchUp({ ...base, schedule: "0 6 * * 1", now: d("2026-11-25T10:00:00Z"), lastRunAt: null });
    expect(decision).toMatchObject({ action: "skip", slot: d("2026-11-23T06:00:00Z") });
  });

  it("does not count slots from before the schedule existed", () => {
    expect(
      decideCatchUp({ ...base, since: d("2026-11-22T07:00:00Z"), now: d("2026-11-22T10:00:00Z"), lastRunAt: null })
        .action,
    ).toBe("none");
  });

  it("uses the pipeline's time zone", () => {
    const decision = decideCatchUp({ ...base, tz: "Europe/Berlin", now: d("2026-11-22T05:30:00Z"), lastRunAt: null });
    expect(decision).toEqual({ action: "run", slot: d("2026-11-22T05:00:00Z") });
  });
});

describe("SLA deadline", () => {
  it("computes the local day and deadline, across DST", () => {
    expect(slaWindow("06:30", "America/New_York", d("2026-03-08T15:00:00Z"))).toEqual({
      date: "2026-03-08",
      dayStart: d("2026-03-08T05:00:00Z"),
      deadline: d("2026-03-08T10:30:00Z"),
    });
  });

  it("is missed after the deadline without a success that day, once per day", () => {
    const input = {
      deadline: "06:00",
      tz: "UTC",
      lastSuccessFinishedAt: d("2026-11-21T05:00:00Z"),
      lastReportedDate: null,
    };
    expect(isSlaMissed({ ...input, now: d("2026-11-22T05:59:00Z") }).missed).toBe(false);
    expect(isSlaMissed({ ...input, now: d("2026-11-22T06:00:00Z") }).missed).toBe(true);
    expect(isSlaMissed({ ...input, now: d("2026-11-22T07:00:00Z"), lastReportedDate: "2026-11-22" }).missed).toBe(
      false,
    );
  });

  it("is met by a success that finished that day before the deadline", () => {
    const result = isSlaMissed({
      deadline: "06:00",
      tz: "UTC",
      now: d("2026-11-22T08:00:00Z"),
      lastSuccessFinishedAt: d("2026-11-22T05:10:00Z"),
      lastReportedDate: null,
    });
    expect(result.missed).toBe(false);
  });
});
