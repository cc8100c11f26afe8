import type { TrendEntry } from "@sluice/client";

const W = 560;
const H = 200;
const PAD = { top: 12, right: 8, bottom: 34, left: 34 };

const dayFmt = new Intl.DateTimeFormat(undefined, { weekday: "short", timeZone: "UTC" });
const dateFmt = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const longFmt = new Intl.DateTimeFormat(undefined, {
  weekday: "long",
  year: "numeric",
  month: "long",
  day: "numeric",
  timeZone: "UTC",
});

/** A trend date `YYYY-MM-DD` is a calendar day: named in the browser's locale without shifting it across zones. */
function dayOf(date: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
}

function niceMax(value: number): number {
  if (value <= 4) return 4;
  const pow = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * pow >= value) return m * pow;
  return 10 * pow;
}

/** Success vs failed runs per day as stacked bars (other outcomes in grey), with a legend and a title per bar. */
export function TrendChart({ trends }: { trends: TrendEntry[] }) {
  const max = niceMax(Math.max(0, ...trends.map((t) => t.total)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, trends.length);
  const barW = Math.min(46, slot * 0.6);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const gridValues = [0, max / 4, max / 2, (3 * max) / 4, max];
  const totals = trends.reduce(
    (acc, t) => ({ success: acc.success + t.success, failed: acc.failed + t.failed, total: acc.total + t.total }),
    { success: 0, failed: 0, total: 0 },
  );

  return (
    <figure className="trend">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Runs per day over the last ${trends.length} days: ${totals.success} succeeded, ${totals.failed} failed`}
        className="trend-svg"
      >
        {gridValues.map((v) => (
          <g key={v}>
            <line className="trend-grid" x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} />
            <text className="trend-axis" x={PAD.left - 6} y={y(v) + 4} textAnchor="end">
              {Number.isInteger(v) ? v : v.toFixed(1)}
            </text>
          </g>
        ))}
        {trends.map((t, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
          const other = Math.max(0, t.total - t.success - t.failed);
          const day = dayOf(t.date);
          const isLast = i === trends.length - 1;
          const label = day ? `${longFmt.format(day)} (UTC)` : t.date;
          const segments = [
            { key: "success", value: t.success },
            { key: "failed", value: t.failed },
            { key: "other", value: other },
          ];
          let base = 0;
          return (
            <g key={t.date} className="trend-day">
              <title>
                {`${label}: ${t.success} success, ${t.failed} failed` +
                  (other ? `, ${other} other (running or cancelled)` : "") +
                  ` — ${t.total} run${t.total === 1 ? "" : "s"}`}
              </title>
              {/* the whole column is the hover target, also for days without runs */}
              <rect x={PAD.left + i * slot} y={PAD.top} width={slot} height={plotH} className="trend-hit" />
              {segments.map((s) => {
                if (s.value === 0) return null;
                const top = y(base + s.value);
                const height = y(base) - top;
                base += s.value;
                return (
                  <rect
                    key={s.key}
                    className={`trend-${s.key}`}
                    x={x}
                    y={top}
                    width={barW}
                    height={Math.max(1, height)}
                  />
                );
              })}
              {t.total > 0 && (
                <text className="trend-total" x={x + barW / 2} y={y(t.total) - 4} textAnchor="middle">
                  {t.total}
                </text>
              )}
              <text
                className={isLast ? "trend-axis today" : "trend-axis"}
                x={x + barW / 2}
                y={H - PAD.bottom + 14}
                textAnchor="middle"
              >
                {isLast ? "Today" : day ? dayFmt.format(day) : t.date}
              </text>
              <text className="trend-axis" x={x + barW / 2} y={H - PAD.bottom + 27} textAnchor="middle">
                {day ? dateFmt.format(day) : ""}
              </text>
            </g>
          );
        })}
        <line className="trend-baseline" x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} />
      </svg>
      <figcaption className="trend-legend">
        <span>
          <i className="swatch trend-success" /> success ({totals.success})
        </span>
        <span>
          <i className="swatch trend-failed" /> failed ({totals.failed})
        </span>
        {totals.total > totals.success + totals.failed && (
          <span>
            <i className="swatch trend-other" /> other ({totals.total - totals.success - totals.failed})
          </span>
        )}
        <span className="muted">Days are UTC calendar days</span>
      </figcaption>
    </figure>
  );
}
