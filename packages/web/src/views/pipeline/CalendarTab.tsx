import { useMemo } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { useOp } from "../../lib/api";

const DAYS = 365;
const DAY_MS = 86_400_000;

interface Day {
  date: string;
  success: number;
  failed: number;
  other: number;
}

const utcDate = (d: Date) => d.toISOString().slice(0, 10);

function level(n: number): number {
  return n === 0 ? 0 : n === 1 ? 1 : n <= 3 ? 2 : n <= 9 ? 3 : 4;
}

/** A year of days (weeks as columns, Sunday on top), each coloured by its runs: red when any failed, else green. */
export function CalendarTab({ pipelineId }: { pipelineId: string }) {
  // one count per UTC day of this pipeline's runs, oldest first, the last entry being today (UTC)
  const calendar = useOp("calendar", { query: { days: DAYS, pipeline_id: pipelineId } });
  const { weeks, months, totals } = useMemo(() => {
    const byDate = new Map<string, Day>();
    const totals = { success: 0, failed: 0, other: 0 };
    for (const c of calendar.data ?? []) {
      const other = c.total - c.success - c.failed;
      byDate.set(c.date, { date: c.date, success: c.success, failed: c.failed, other });
      totals.success += c.success;
      totals.failed += c.failed;
      totals.other += other;
    }
    const today = new Date(`${calendar.data?.at(-1)?.date ?? utcDate(new Date())}T00:00:00Z`);
    const first = new Date(today.getTime() - (DAYS - 1) * DAY_MS);
    first.setUTCDate(first.getUTCDate() - first.getUTCDay()); // back to Sunday
    const weeks: (Day & { future: boolean; dow: number })[][] = [];
    const months: { col: number; label: string }[] = [];
    const monthFmt = new Intl.DateTimeFormat(undefined, { month: "short", timeZone: "UTC" });
    for (let d = new Date(first), col = 0; d <= today || d.getUTCDay() !== 0; col++) {
      const week: (Day & { future: boolean; dow: number })[] = [];
      for (let dow = 0; dow < 7; dow++) {
        const key = utcDate(d);
        // a month's label over the week holding its 1st, unless it would collide with the previous label
        const prevCol = months[months.length - 1]?.col ?? -Infinity;
        if (d.getUTCDate() === 1 && col - prevCol >= 3) months.push({ col, label: monthFmt.format(d) });
        else if (d.getUTCDate() === 1 && col < 3) months.splice(0, months.length, { col, label: monthFmt.format(d) });
        week.push({ ...(byDate.get(key) ?? { date: key, success: 0, failed: 0, other: 0 }), future: d > today, dow });
        d.setUTCDate(d.getUTCDate() + 1);
      }
      weeks.push(week);
    }
    return { weeks, months, totals };
  }, [calendar.data]);

  if (calendar.isPending) return <Loading label="Loading a year of runs" />;
  const all = totals.success + totals.failed + totals.other;
  return (
    <div className="panel">
      <ErrorBox error={calendar.error} title="Could not load the run calendar" />
      <p>
        <strong>{all.toLocaleString()}</strong> run{all === 1 ? "" : "s"} in the last year:{" "}
        <span className="pl-cal-ok">{totals.success.toLocaleString()} succeeded</span>,{" "}
        <span className="pl-cal-bad">{totals.failed.toLocaleString()} failed</span>
        {totals.other > 0 && <>, {totals.other.toLocaleString()} other (running, pending, cancelled)</>}.
        <span className="muted"> Days in UTC.</span>
      </p>
      <div className="pl-cal-scroll">
        <div
          className="pl-cal"
          role="img"
          aria-label={`Run calendar: ${totals.success} succeeded and ${totals.failed} failed over the last year`}
          style={{ gridTemplateColumns: `28px repeat(${weeks.length}, 13px)` }}
        >
          <span />
          {weeks.map((_, col) => {
            const m = months.find((x) => x.col === col);
            return (
              <span key={`m${col}`} className="pl-cal-month">
                {m?.label ?? ""}
              </span>
            );
          })}
          {[0, 1, 2, 3, 4, 5, 6].map((dow) => (
            <Row key={dow} dow={dow} weeks={weeks} />
          ))}
        </div>
      </div>
      <div className="pl-legend">
        <span className="pl-legend-item">
          <span className="pl-cal-day" aria-hidden="true" /> no runs
        </span>
        {[1, 2, 3, 4].map((l) => (
          <span key={`s${l}`} className={`pl-cal-day ok l${l}`} aria-hidden="true" />
        ))}
        <span className="pl-legend-item">all succeeded</span>
        {[1, 2, 3, 4].map((l) => (
          <span key={`f${l}`} className={`pl-cal-day bad l${l}`} aria-hidden="true" />
        ))}
        <span className="pl-legend-item">some failed (darker: more runs)</span>
      </div>
    </div>
  );
}

const DOW = ["Sun", "", "Tue", "", "Thu", "", "Sat"];

function Row({ dow, weeks }: { dow: number; weeks: (Day & { future: boolean })[][] }) {
  return (
    <>
      <span className="pl-cal-dow">{DOW[dow]}</span>
      {weeks.map((week, col) => {
        const day = week[dow]!;
        if (day.future) return <span key={col} />;
        const total = day.success + day.failed + day.other;
        const kind = day.failed > 0 ? "bad" : day.success > 0 ? "ok" : total > 0 ? "other" : "";
        const title =
          total === 0
            ? `${day.date}: no runs`
            : `${day.date}: ${total} run${total === 1 ? "" : "s"} — ${day.success} success, ${day.failed} failed` +
              (day.other ? `, ${day.other} other` : "");
        return <span key={col} className={`pl-cal-day ${kind} l${level(total)}`} title={title} />;
      })}
    </>
  );
}
