import { IANAZone } from "luxon";

/**
 * Wall-clock ↔ instant conversion in an IANA zone with explicit DST rules:
 * - a local time that does not exist (spring forward) maps to the first valid instant after it — the end of the gap;
 * - a local time that occurs twice (fall back) maps to its first occurrence.
 * "Floating" times are wall-clock fields stored in a Date as if they were UTC.
 */

const MINUTE = 60_000;

function zoneOf(tz: string): IANAZone {
  const zone = IANAZone.create(tz);
  if (!zone.isValid) throw new Error(`invalid timezone '${tz}'`);
  return zone;
}

/** The wall-clock time of `instant` in `tz`, as a floating Date. */
export function toFloating(instant: Date, tz: string): Date {
  const offset = zoneOf(tz).offset(instant.getTime());
  return new Date(instant.getTime() + offset * MINUTE);
}

/** The instant at which the wall clock in `tz` shows `floating` (DST rules above). */
export function fromFloating(floating: Date, tz: string): Date {
  const zone = zoneOf(tz);
  const local = floating.getTime();
  const offsets = new Set([-36, -12, 0, 12, 36].map((h) => zone.offset(local + h * 3_600_000)));
  const valid = [...offsets]
    .map((o) => local - o * MINUTE)
    .filter((t) => t + zone.offset(t) * MINUTE === local)
    .sort((a, b) => a - b);
  if (valid.length > 0) return new Date(valid[0] as number);
  // In a gap: find the transition, the first instant whose wall clock is past `local`.
  let lo = local - Math.max(...offsets) * MINUTE;
  let hi = local - Math.min(...offsets) * MINUTE;
  if (lo > hi) [lo, hi] = [hi, lo];
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2);
    if (mid + zone.offset(mid) * MINUTE > local) hi = mid;
    else lo = mid;
  }
  return new Date(Math.ceil(hi / MINUTE) * MINUTE);
}
