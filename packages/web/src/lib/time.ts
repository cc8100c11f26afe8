/** Times are shown in the browser's time zone; the title (hover) carries the exact UTC instant. */
const local = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const localShort = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

export function toDate(value: string | number | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

export function formatLocal(value: string | number | Date): string {
  return local.format(toDate(value));
}

export function formatClock(value: string | number | Date): string {
  return localShort.format(toDate(value));
}

export function formatUtc(value: string | number | Date): string {
  return toDate(value)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");
}

export function formatRelative(value: string | number | Date, now = Date.now()): string {
  const seconds = Math.round((toDate(value).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, "second");
  if (abs < 3600) return relative.format(Math.round(seconds / 60), "minute");
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), "hour");
  return relative.format(Math.round(seconds / 86_400), "day");
}

/** `1.2 s`, `340 ms`, `3 m 12 s`, `2 h 5 m`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} m`;
}

export const browserTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
