import type { TopFailingEntry } from "@sluice/client";
import { Link } from "react-router";

/** Pipelines with the most failed runs in the last 7 days, with a bar relative to the worst one. */
export function TopFailing({ entries }: { entries: TopFailingEntry[] }) {
  if (entries.length === 0) return <div className="empty">No failed runs in the last 7 days.</div>;
  const worst = Math.max(...entries.map((e) => e.fail_count));
  return (
    <ol className="top-failing">
      {entries.map((e) => (
        <li key={e.pipeline_id}>
          <div className="tf-line">
            <Link to={`/pipelines/${encodeURIComponent(e.pipeline_id)}`}>{e.name}</Link>
            <span className="tf-count">
              {e.fail_count} failure{e.fail_count === 1 ? "" : "s"}
            </span>
          </div>
          <div className="tf-bar" aria-hidden="true">
            <span style={{ width: `${(e.fail_count / worst) * 100}%` }} />
          </div>
        </li>
      ))}
    </ol>
  );
}
