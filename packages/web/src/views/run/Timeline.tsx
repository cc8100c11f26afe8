import type { NodeRun, RunWithNodes } from "@sluice/client";
import { formatDuration, formatLocal, formatUtc } from "../../lib/time";
import { elapsedMs } from "./useNow";

const STEPS_MS = [
  1, 2, 5, 10, 20, 50, 100, 250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
];
const MAX_TICKS = 7;

const tickClock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const tickClockMs = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  fractionalSecondDigits: 1,
});

/** The shortest axis: a run of a few milliseconds still gets bars you can tell apart. */
const MIN_SPAN_MS = 20;

function ticks(start: number, end: number): { at: number; label: string }[] {
  const span = end - start;
  const step = STEPS_MS.find((s) => span / s <= MAX_TICKS) ?? STEPS_MS[STEPS_MS.length - 1]!;
  if (step < 100) {
    // a sub-second run: offsets from its start read better than clock times that differ in the last digits
    const out: { at: number; label: string }[] = [];
    for (let t = 0; t <= span; t += step)
      out.push({ at: start + t, label: t === 0 ? tickClock.format(start) : `+${t} ms` });
    return out;
  }
  const fmt = step < 1000 ? tickClockMs : tickClock;
  // wall-clock aligned (…:00, …:15, …): the time zone offset is whole minutes for every step of a minute or less
  const offset = new Date(start).getTimezoneOffset() * 60_000;
  const out: { at: number; label: string }[] = [];
  for (let t = Math.ceil((start - offset) / step) * step + offset; t <= end; t += step) {
    out.push({ at: t, label: fmt.format(new Date(t)) });
  }
  return out;
}

function pct(value: number, start: number, span: number): number {
  return Math.min(100, Math.max(0, ((value - start) / span) * 100));
}

/**
 * The Gantt chart of a run: one row per node run, a bar from its start to its end (to now while it runs), coloured by
 * status with the status word beside the bar. The axis is wall-clock time in the browser's time zone.
 */
export function Timeline({
  run,
  now,
  selected,
  onSelect,
}: {
  run: RunWithNodes;
  now: number;
  selected: string;
  onSelect: (nodeId: string) => void;
}) {
  const rows = [...run.node_runs].sort((a, b) => {
    if (a.started_at && b.started_at) return Date.parse(a.started_at) - Date.parse(b.started_at);
    return a.started_at ? -1 : b.started_at ? 1 : 0;
  });
  const starts = rows.filter((r) => r.started_at).map((r) => Date.parse(r.started_at!));
  const ends = rows.map((r) => (r.finished_at ? Date.parse(r.finished_at) : r.started_at ? now : NaN));
  const runStart = run.started_at ? Date.parse(run.started_at) : NaN;
  // from the run's (latest) start: after a resume, nodes reused from the earlier attempt lie before it
  const start = Number.isFinite(runStart) ? runStart : Math.min(...starts);
  const runEnd = run.finished_at ? Date.parse(run.finished_at) : NaN;
  const active = run.status === "pending" || run.status === "running";
  const endCandidates = [active ? now : runEnd, ...ends].filter(Number.isFinite);

  if (!Number.isFinite(start) || rows.length === 0) {
    return (
      <div className="timeline" aria-label="Timeline" role="group">
        <div className="empty">
          {run.status === "pending" ? "The run has not started yet." : "No node has started in this run."}
        </div>
      </div>
    );
  }
  const end = Math.max(start + MIN_SPAN_MS, ...endCandidates);
  const span = end - start;
  const axis = ticks(start, end);

  return (
    <div className="timeline" aria-label="Timeline" role="group">
      <div className="tl-row tl-axis" aria-hidden="true">
        <div className="tl-label" />
        <div className="tl-track">
          {axis.map((t) => (
            <span key={t.at} className="tl-tick" style={{ left: `${pct(t.at, start, span)}%` }}>
              {t.label}
            </span>
          ))}
        </div>
      </div>
      {rows.map((nr) => (
        <TimelineRow
          key={nr.id}
          nodeRun={nr}
          now={now}
          start={start}
          span={span}
          ticks={axis}
          selected={selected === nr.node_id}
          onSelect={onSelect}
        />
      ))}
    </div>
  );
}

function TimelineRow({
  nodeRun: nr,
  now,
  start,
  span,
  ticks,
  selected,
  onSelect,
}: {
  nodeRun: NodeRun;
  now: number;
  start: number;
  span: number;
  ticks: { at: number }[];
  selected: boolean;
  onSelect: (nodeId: string) => void;
}) {
  const duration = elapsedMs(nr.started_at, nr.finished_at, now);
  if (nr.finished_at && Date.parse(nr.finished_at) < start) {
    return (
      <div className={selected ? "tl-row selected" : "tl-row"}>
        <div className="tl-label" title={nr.node_id}>
          <button
            type="button"
            className="link-button"
            title={`Show the log of ${nr.node_id}`}
            onClick={() => onSelect(nr.node_id)}
          >
            {nr.node_id}
          </button>
        </div>
        <div
          className="tl-track"
          title={`${nr.node_id}: ${nr.status} in an earlier attempt of this run (${formatLocal(nr.finished_at)})`}
        >
          <span className="tl-text muted" style={{ left: 0 }}>
            {nr.status} · {formatDuration(duration)} · earlier attempt
          </span>
        </div>
      </div>
    );
  }
  const from = nr.started_at ? pct(Date.parse(nr.started_at), start, span) : null;
  const to = nr.started_at ? pct(nr.finished_at ? Date.parse(nr.finished_at) : now, start, span) : null;
  const attempts = nr.attempt > 1 ? `, attempt ${nr.attempt}` : "";
  const title =
    from === null
      ? `${nr.node_id}: ${nr.status} (not started)`
      : `${nr.node_id}: ${nr.status}${attempts}, ${formatDuration(duration)}\n` +
        `${formatLocal(nr.started_at!)} → ${nr.finished_at ? formatLocal(nr.finished_at) : "now"}\n` +
        `${formatUtc(nr.started_at!)} → ${nr.finished_at ? formatUtc(nr.finished_at) : "now"}`;
  // the status word goes after the bar, before it when the bar ends near the right edge, else inside it
  const place = to === null || from === null ? "after" : to <= 72 ? "after" : from >= 28 ? "before" : "inside";
  const labelStyle =
    place === "after"
      ? { left: `calc(${to}% + 6px)` }
      : place === "before"
        ? { right: `calc(${100 - from!}% + 6px)` }
        : { left: `calc(${from}% + 6px)` };
  return (
    <div className={selected ? "tl-row selected" : "tl-row"}>
      <div className="tl-label" title={nr.node_id}>
        <button
          type="button"
          className="link-button"
          title={`Show the log of ${nr.node_id}`}
          onClick={() => onSelect(nr.node_id)}
        >
          {nr.node_id}
        </button>
      </div>
      <div className="tl-track" title={title}>
        {ticks.map((t) => (
          <span key={t.at} className="tl-grid" style={{ left: `${pct(t.at, start, span)}%` }} />
        ))}
        {from !== null && to !== null ? (
          <>
            <span
              className={`tl-bar tl-${nr.status}`}
              style={{ left: `${from}%`, width: `max(3px, ${to - from}%)` }}
              aria-hidden="true"
            />
            <span className={place === "inside" ? "tl-text inside" : "tl-text"} style={labelStyle}>
              {nr.status} · {formatDuration(duration)}
              {attempts}
            </span>
          </>
        ) : (
          <span className="tl-text muted" style={{ left: 0 }}>
            {nr.status}
          </span>
        )}
      </div>
    </div>
  );
}
