/** Login lockout (SPEC part 8): 5 failures within 15 minutes lock the username for 15 minutes. */
export const LOCKOUT_THRESHOLD = 5;
export const LOCKOUT_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_DURATION_MS = 15 * 60 * 1000;

/** Seconds until the lock ends (at least 1), or null when not locked at `now`. */
export function lockRemainingSeconds(lockedUntil: string | null, now: Date): number | null {
  if (lockedUntil === null) return null;
  const remainingMs = Date.parse(lockedUntil) - now.getTime();
  return remainingMs > 0 ? Math.max(1, Math.ceil(remainingMs / 1000)) : null;
}
