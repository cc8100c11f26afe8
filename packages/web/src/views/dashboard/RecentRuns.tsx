import type { Dashboard } from "@sluice/client";
import { Link } from "react-router";
import { StatusBadge } from "../../components/StatusBadge";
import { Time } from "../../components/Time";
import { formatDuration } from "../../lib/time";
import { elapsedMs, useNow } from "../run/useNow";

/** The latest runs across pipelines; a running run's duration grows live. */
export function RecentRuns({ runs }: { runs: Dashboard["recent_runs"] }) {
  const active = runs.some((r) => r.status === "running");
  const now = useNow(active);
  if (runs.length === 0) return <div className="empty">No runs yet. Trigger a pipeline to see it here.</div>;
  return (
    <div className="table-scroll">
      <table className="recent-runs">
        <thead>
          <tr>
            <th>Status</th>
            <th>Pipeline</th>
            <th>Trigger</th>
            <th>Started</th>
            <th className="num">Duration</th>
            <th>Run</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td>
                <StatusBadge status={r.status} />
              </td>
              <td>
                <Link to={`/pipelines/${encodeURIComponent(r.pipeline_id)}`}>{r.pipeline_name ?? r.pipeline_id}</Link>
              </td>
              <td>{r.trigger}</td>
              <td>
                <Time value={r.started_at ?? r.created_at} />
              </td>
              <td className="num">{formatDuration(elapsedMs(r.started_at, r.finished_at, now))}</td>
              <td>
                <Link to={`/runs/${encodeURIComponent(r.id)}`} title={r.id} aria-label={`Run ${r.id}`}>
                  <span className="mono">{r.id.slice(-8)}</span> →
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
