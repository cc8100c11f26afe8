import type { Dashboard } from "@sluice/client";

/** The headline numbers: pipelines, runs today and over 7 days, success rate, running now. */
export function Counters({ dashboard }: { dashboard: Dashboard }) {
  const { counters, trends } = dashboard;
  const today = trends[trends.length - 1];
  const week = trends.reduce(
    (acc, t) => ({ success: acc.success + t.success, failed: acc.failed + t.failed, total: acc.total + t.total }),
    { success: 0, failed: 0, total: 0 },
  );
  const finished = week.success + week.failed;
  const rate = finished === 0 ? null : (week.success / finished) * 100;
  const rateClass = rate === null ? "" : rate >= 95 ? "good" : rate >= 80 ? "warn" : "bad";
  return (
    <div className="cards dash-cards">
      <Card label="Pipelines" value={counters.pipelines} sub={`${counters.enabled_pipelines} enabled`} />
      <Card
        label="Running now"
        value={counters.active_runs}
        sub={`${counters.queued_runs} queued`}
        className={counters.active_runs > 0 ? "running" : ""}
      />
      <Card
        label="Runs today"
        value={today?.total ?? 0}
        sub={today ? `${today.success} ok · ${today.failed} failed` : "UTC day"}
      />
      <Card label="Runs, 7 days" value={week.total} sub={`${counters.runs_total.toLocaleString()} all time`} />
      <Card
        label="Success rate, 7 days"
        value={rate === null ? "—" : `${rate >= 99.95 || rate < 0.05 ? rate.toFixed(0) : rate.toFixed(1)}%`}
        sub={finished === 0 ? "no finished runs" : `${week.success} of ${finished} finished runs`}
        className={rateClass}
      />
    </div>
  );
}

function Card({
  label,
  value,
  sub,
  className = "",
}: {
  label: string;
  value: number | string;
  sub?: string;
  className?: string;
}) {
  return (
    <div className={`card ${className}`}>
      <div className="label">{label}</div>
      <div className="value">{typeof value === "number" ? value.toLocaleString() : value}</div>
      {sub && <div className="card-sub muted">{sub}</div>}
    </div>
  );
}
