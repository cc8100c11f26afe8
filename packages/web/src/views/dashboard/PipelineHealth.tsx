import type { PipelineRunSummary } from "@sluice/client";
import { Link } from "react-router";
import { StatusBadge } from "../../components/StatusBadge";
import { Time } from "../../components/Time";

const LIMIT = 8;

/** Pipelines whose latest run failed first, then the most recently run; their last status and all-time record. */
export function PipelineHealth({ pipelines }: { pipelines: PipelineRunSummary[] }) {
  if (pipelines.length === 0)
    return (
      <div className="empty">
        No pipelines yet. <Link to="/pipelines">Create one</Link>.
      </div>
    );
  const rank = (p: PipelineRunSummary) => (p.last_run_status === "failed" ? 0 : p.last_run_status === null ? 2 : 1);
  const sorted = [...pipelines]
    .sort((a, b) => rank(a) - rank(b) || (b.last_run_at ?? "").localeCompare(a.last_run_at ?? ""))
    .slice(0, LIMIT);
  return (
    <>
      <table className="health">
        <thead>
          <tr>
            <th>Pipeline</th>
            <th>Last run</th>
            <th className="num">Succeeded</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((p) => (
            <tr key={p.id}>
              <td>
                <Link to={`/pipelines/${encodeURIComponent(p.id)}`}>{p.name}</Link>
                {!p.enabled && <span className="muted small"> (paused)</span>}
              </td>
              <td>
                <StatusBadge status={p.last_run_status} />
                {p.last_run_at && (
                  <div className="muted small">
                    <Time value={p.last_run_at} relative />
                  </div>
                )}
              </td>
              <td className="num">
                {p.runs_total === 0 ? (
                  <span className="muted">—</span>
                ) : (
                  <>
                    {p.runs_success}/{p.runs_total}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {pipelines.length > LIMIT && (
        <p className="more">
          <Link to="/pipelines">All {pipelines.length} pipelines →</Link>
        </p>
      )}
    </>
  );
}
