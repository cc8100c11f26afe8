/** Time source port, so schedulers and timestamps can be driven by a fake clock in tests. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

let lastMs = Number.NaN;
let lastText = "";

/**
 * `date` as ISO 8601 text (`toISOString`). The text of the last millisecond formatted is kept: a run stamps its node
 * runs, events and log lines several times per node, mostly within the same millisecond, and formatting was about a
 * twentieth of a 40-node chain's node work. An invalid date throws, as `toISOString` does.
 */
export function isoText(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastMs) {
    lastText = date.toISOString();
    lastMs = ms;
  }
  return lastText;
}

/** The clock's time now as ISO 8601 text. */
export const nowIso = (clock: Clock): string => isoText(clock.now());
