import { DateTime } from "luxon";
import { fromFloating } from "./wall-clock.js";

export interface SlaWindow {
  /** Local date (YYYY-MM-DD) in the SLA zone. */
  date: string;
  /** Start of that local day. */
  dayStart: Date;
  /** The deadline instant of that day. */
  deadline: Date;
}

/** The SLA window of the local day containing `now` in `tz` ("HH:MM" deadline, DST rules of wall-clock.ts). */
export function slaWindow(deadline: string, tz: string, now: Date): SlaWindow {
  const local = DateTime.fromJSDate(now, { zone: tz });
  const [hh, mm] = deadline.split(":").map(Number) as [number, number];
  const date = local.toISODate() as string;
  const floatingDay = Date.UTC(local.year, local.month - 1, local.day);
  return {
    date,
    dayStart: fromFloating(new Date(floatingDay), tz),
    deadline: fromFloating(new Date(floatingDay + (hh * 60 + mm) * 60_000), tz),
  };
}

/**
 * Whether the SLA is missed at `now`: the deadline of today has passed, no successful run finished between the
 * start of the local day and the deadline, and the miss was not already reported for this date.
 */
export function isSlaMissed(input: {
  deadline: string;
  tz: string;
  now: Date;
  lastSuccessFinishedAt: Date | null;
  lastReportedDate: string | null;
}): { missed: boolean; window: SlaWindow } {
  const window = slaWindow(input.deadline, input.tz, input.now);
  if (input.now.getTime() < window.deadline.getTime()) return { missed: false, window };
  if (input.lastReportedDate === window.date) return { missed: false, window };
  const done = input.lastSuccessFinishedAt;
  const metInTime =
    done !== null && done.getTime() >= window.dayStart.getTime() && done.getTime() <= window.deadline.getTime();
  return { missed: !metInTime, window };
}
