import { CronExpressionParser } from "cron-parser";
import { fromFloating, toFloating } from "./wall-clock.js";

/**
 * Cron evaluation in an IANA zone. The expression is evaluated on the zone's wall clock (floating time, via
 * cron-parser in UTC) and each wall-clock slot is mapped to an instant with the DST rules of wall-clock.ts, so a
 * slot in the spring-forward gap runs once at the end of the gap and a slot in the repeated fall-back hour runs once.
 */
const MAX_STEPS = 1000;

/** The first slot strictly after `after`. */
export function nextSlot(expr: string, tz: string, after: Date): Date {
  const floatingAfter = toFloating(after, tz);
  const iter = CronExpressionParser.parse(expr, { tz: "UTC", currentDate: floatingAfter });
  for (let i = 0; i < MAX_STEPS; i++) {
    const instant = fromFloating(iter.next().toDate(), tz);
    if (instant.getTime() > after.getTime()) return instant;
  }
  throw new Error(`no slot found for '${expr}' after ${after.toISOString()}`);
}

/**
 * When a pipeline's schedule fires next after `now`: null when it is disabled, has no schedule, or its expression or
 * zone cannot be evaluated (the scheduler then never fires it either). In memory, no I/O.
 */
export function nextRunAt(
  pipeline: { readonly schedule: string | null; readonly schedule_timezone: string | null; readonly enabled: boolean },
  now: Date,
): Date | null {
  if (!pipeline.enabled || !pipeline.schedule) return null;
  try {
    return nextSlot(pipeline.schedule, pipeline.schedule_timezone ?? "UTC", now);
  } catch {
    return null;
  }
}

/** The latest slot at or before `atOrBefore`, or null when there is none within the parser's range. */
export function previousSlot(expr: string, tz: string, atOrBefore: Date): Date | null {
  // Start one minute later so a slot exactly at `atOrBefore` counts.
  const floating = new Date(toFloating(atOrBefore, tz).getTime() + 60_000);
  const iter = CronExpressionParser.parse(expr, { tz: "UTC", currentDate: floating });
  for (let i = 0; i < MAX_STEPS; i++) {
    let candidate: Date;
    try {
      candidate = iter.prev().toDate();
    } catch {
      return null;
    }
    const instant = fromFloating(candidate, tz);
    if (instant.getTime() <= atOrBefore.getTime()) return instant;
  }
  return null;
}

/** Slots in (from, to], in order, at most `limit`. */
export function slotsBetween(expr: string, tz: string, from: Date, to: Date, limit = 10_000): Date[] {
  const out: Date[] = [];
  let cursor = from;
  while (out.length < limit) {
    const next = nextSlot(expr, tz, cursor);
    if (next.getTime() > to.getTime()) break;
    out.push(next);
    cursor = next;
  }
  return out;
}
