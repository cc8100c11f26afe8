import { useState } from "react";
import { Link } from "react-router";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { Pager } from "../../components/Pager";
import { StatusBadge } from "../../components/StatusBadge";
import { Time } from "../../components/Time";
import { useOp } from "../../lib/api";
import { formatDuration } from "../../lib/time";
import { runDurationMs, runItems } from "./runs";

const PER_PAGE = 25;

/** The pipeline's runs, newest first, a page at a time. */
export function RunsTab({ pipelineId }: { pipelineId: string }) {
  const [page, setPage] = useState(1);
  const runs = useOp("listRuns", { params: { id: pipelineId }, query: { page, per_page: PER_PAGE } });
  const { items, total } = runItems(runs.data);
  if (runs.isPending) return <Loading label="Loading runs" />;
  return (
    <div>
      <ErrorBox error={runs.error} title="Could not load runs" />
      {items.length === 0 ? (
        <div className="panel empty">No runs yet.</div>
      ) : (
        <div className="panel pl-flush">
          <table aria-label="Runs">
            <thead>
              <tr>
                <th>Status</th>
                <th>Trigger</th>
                <th>Started</th>
                <th>Finished</th>
                <th className="num">Duration</th>
                <th>Params</th>
                <th>Run</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r) => (
                <tr key={r.id}>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td>{r.trigger}</td>
                  <td>
                    <Time value={r.started_at ?? r.created_at} />
                  </td>
                  <td>
                    <Time value={r.finished_at} />
                  </td>
                  <td className="num">{formatDuration(runDurationMs(r))}</td>
                  <td className="pl-params-cell">
                    {Object.keys(r.params ?? {}).length ? (
                      <code title={JSON.stringify(r.params, null, 1)}>
                        {Object.entries(r.params)
                          .map(([k, v]) => `${k}=${v}`)
                          .join(" ")}
                      </code>
                    ) : (
                      <span className="muted">—</span>
                    )}
                    {r.error && <div className="pl-run-error">{r.error}</div>}
                  </td>
                  <td>
                    <Link to={`/runs/${encodeURIComponent(r.id)}`} aria-label={`Open run ${r.id}`}>
                      {r.id.slice(-8)}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        total={total}
        limit={PER_PAGE}
        offset={(page - 1) * PER_PAGE}
        onOffset={(o) => setPage(o / PER_PAGE + 1)}
      />
    </div>
  );
}
