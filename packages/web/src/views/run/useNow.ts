import { useEffect, useState } from "react";

/** The current time, ticking every `intervalMs` while `active` (running bars and durations grow live). */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, intervalMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [active, intervalMs]);
  return now;
}

/** Milliseconds between two instants; an open end runs to `now`. null when it never started. */
export function elapsedMs(
  startedAt: string | null | undefined,
  finishedAt: string | null | undefined,
  now: number,
): number | null {
  if (!startedAt) return null;
  const start = Date.parse(startedAt);
  const end = finishedAt ? Date.parse(finishedAt) : now;
  if (!Number.isFinite(start) || !Number.isFinite(end)) return null;
  return Math.max(0, end - start);
}

export const ACTIVE_RUN_STATUSES: readonly string[] = ["pending", "running"];
