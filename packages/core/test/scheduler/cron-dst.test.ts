import fc from "fast-check";
import { CronExpressionParser } from "cron-parser";
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { nextSlot, previousSlot, slotsBetween } from "../../src/scheduler/cron.js";

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
const NY = "America/New_York";
const BERLIN = "Europe/Berlin";

describe("cron in time zones with DST", () => {
  it("America/New_York spring forward: 02:30 does not exist on 2026-03-08 and runs once at 03:00 EDT", () => {
    const slots = slotsBetween("30 2 * * *", NY, new Date("2026-03-06T12:00:00Z"), new Date("2026-03-10T12:00:00Z"));
    expect(iso(slots)).toEqual([
      "2026-03-07T07:30:00.000Z", // 02:30 EST
      "2026-03-08T07:00:00.000Z", // gap → 03:00 EDT
      "2026-03-09T06:30:00.000Z", // 02:30 EDT
      "2026-03-10T06:30:00.000Z",
    ]);
  });

  it("America/New_York fall back: 01:30 occurs twice on 2026-11-01 and runs once, at the first", () => {
    const slots = slotsBetween("30 1 * * *", NY, new Date("2026-10-30T12:00:00Z"), new Date("2026-11-03T00:00:00Z"));
    expect(iso(slots)).toEqual([
      "2026-10-31T05:30:00.000Z", // 01:30 EDT
      "2026-11-01T05:30:00.000Z", // first 01:30 (EDT), not the second (06:30Z)
      "2026-11-02T06:30:00.000Z", // 01:30 EST
    ]);
  });

  it("Europe/Berlin spring forward: every 30 minutes skips the missing hour without doubling", () => {
    const slots = slotsBetween(
      "*/30 * * * *",
      BERLIN,
      new Date("2026-03-29T00:00:00Z"),
      new Date("2026-03-29T02:00:00Z"),
    );
    // 01:00 CET = 00:00Z, 01:30 CET = 00:30Z, 02:00/02:30 do not exist → once at 03:00 CEST = 01:00Z, 03:30 = 01:30Z
    expect(iso(slots)).toEqual([
      "2026-03-29T00:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-29T01:30:00.000Z",
      "2026-03-29T02:00:00.000Z",
    ]);
  });

  it("Europe/Berlin fall back: 02:15 on 2026-10-25 runs once", () => {
    const slots = slotsBetween(
      "15 2 * * *",
      BERLIN,
      new Date("2026-10-24T12:00:00Z"),
      new Date("2026-10-26T12:00:00Z"),
    );
    expect(iso(slots)).toEqual(["2026-10-25T00:15:00.000Z", "2026-10-26T01:15:00.000Z"]);
  });

  it("UTC is the plain cron", () => {
    expect(nextSlot("0 6 * * *", "UTC", new Date("2026-11-22T06:00:00Z")).toISOString()).toBe(
      "2026-11-23T06:00:00.000Z",
    );
    expect(previousSlot("0 6 * * *", "UTC", new Date("2026-11-22T06:00:00Z"))?.toISOString()).toBe(
      "2026-11-22T06:00:00.000Z",
    );
    expect(previousSlot("0 6 * * 0", "UTC", new Date("2026-11-22T05:59:00Z"))?.toISOString()).toBe(
      "2026-11-15T06:00:00.000Z",
    );
  });

  const zones = [
    "UTC",
    NY,
    BERLIN,
    "Europe/London",
    "Australia/Sydney",
    "Asia/Kolkata",
    "America/Sao_Paulo",
    "Pacific/Auckland",
    "Australia/Lord_Howe",
  ];
  const exprs = [
    "0 * * * *",
    "*/15 * * * *",
    "30 2 * * *",
    "0 0 * * 0",
    "5 4 1 * *",
    "0 9-17 * * 1-5",
    "45 1,2,3 * * *",
  ];

  it("property: each next slot is after the start, matches the expression on the local clock, and no slot in between is skipped", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...exprs),
        fc.date({ min: new Date("2024-01-01T00:00:00Z"), max: new Date("2030-12-31T00:00:00Z"), noInvalidDate: true }),
        (tz, expr, start) => {
          const next = nextSlot(expr, tz, start);
          if (next.getTime() <= start.getTime()) return false;
          const local = DateTime.fromJSDate(next, { zone: tz });
          const floating = new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute));
          const matches =
            CronExpressionParser.parse(expr, { tz: "UTC", currentDate: new Date(floating.getTime() - 60_000) })
              .next()
              .toDate()
              .getTime() === floating.getTime();
          // When the slot is not a literal match, it must be the end of a DST gap (a non-existent local time).
          const gapEnd =
            !matches && local.offset !== DateTime.fromJSDate(new Date(next.getTime() - 60_000), { zone: tz }).offset;
          // previousSlot(next) must give next back (it is a slot).
          const prev = previousSlot(expr, tz, next);
          return (matches || gapEnd) && prev?.getTime() === next.getTime();
        },
      ),
      { numRuns: 400 },
    );
  });

  it("property: slots are strictly increasing and at least a minute apart", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...exprs),
        fc.date({ min: new Date("2025-01-01T00:00:00Z"), max: new Date("2029-12-31T00:00:00Z"), noInvalidDate: true }),
        (tz, expr, start) => {
          const slots = slotsBetween(expr, tz, start, new Date(start.getTime() + 3 * 86_400_000), 400);
          return slots.every((s, i) => i === 0 || s.getTime() - (slots[i - 1] as Date).getTime() >= 60_000);
        },
      ),
      { numRuns: 150 },
    );
  });
});
