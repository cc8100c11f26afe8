import { previousSlot } from "./cron.js";

export const CATCH_UP_WINDOW_MS = 24 * 3_600_000;

export type CatchUpDecision =
  { action: "none"; reason: string } | { action: "run"; slot: Date } | { action: "skip"; slot: Date; reason: string };

/**
 * At start-up: was the pipeline's most recent slot missed? `lastRunAt` is when its latest run (of any trigger) was
 * created; `since` is when the schedule took effect (the pipeline's creation or last update), so slots from before
 * a pipeline existed are not "missed". A miss younger than 24 h gets one catch-up run; older misses are skipped.
 */
export function decideCatchUp(input: {
  schedule: string;
  tz: string;
  now: Date;
  lastRunAt: Date | null;
  since: Date;
}): CatchUpDecision {
  const slot = previousSlot(input.schedule, input.tz, input.now);
  if (!slot) return { action: "none", reason: "no earlier slot" };
  if (slot.getTime() <= input.since.getTime()) return { action: "none", reason: "slot precedes the schedule" };
  if (input.lastRunAt && input.lastRunAt.getTime() >= slot.getTime())
    return { action: "none", reason: "slot already ran" };
  if (input.now.getTime() - slot.getTime() >= CATCH_UP_WINDOW_MS) {
    return { action: "skip", slot, reason: "missed slot is older than 24 hours" };
  }
  return { action: "run", slot };
}
