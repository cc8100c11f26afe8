import { formatLocal, formatRelative, formatUtc } from "../lib/time";

/** A moment in the browser's time zone (or relative to now), with the UTC instant on hover. */
export function Time({ value, relative = false }: { value: string | number | null | undefined; relative?: boolean }) {
  if (value === null || value === undefined || value === "") return <span className="muted">—</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{String(value)}</span>;
  return (
    <time dateTime={date.toISOString()} title={formatUtc(date)}>
      {relative ? formatRelative(date) : formatLocal(date)}
    </time>
  );
}
