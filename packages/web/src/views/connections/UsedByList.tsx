import type { UsedBy } from "@sluice/client";
import { Link } from "react-router";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";

/** The pipelines (and their nodes) that reference a connection or a variable. */
export function UsedByList({
  data,
  error,
  pending,
  what,
}: {
  data: UsedBy[] | undefined;
  error: unknown;
  pending: boolean;
  what: string;
}) {
  if (pending) return <Loading label="Looking up pipelines" />;
  if (error) return <ErrorBox error={error} />;
  if (!data || data.length === 0)
    return (
      <p className="muted" style={{ margin: 0 }}>
        No pipeline uses {what}.
      </p>
    );
  return (
    <ul style={{ margin: 0, paddingLeft: 18 }} aria-label={`Pipelines using ${what}`}>
      {data.map((u) => (
        <li key={u.pipeline_id}>
          <Link to={`/pipelines/${encodeURIComponent(u.pipeline_id)}`}>{u.name}</Link>
          {u.node_ids.length > 0 && (
            <span className="muted">
              {" "}
              — {u.node_ids.length === 1 ? "node" : "nodes"}{" "}
              {u.node_ids.map((n, i) => (
                <span key={n}>
                  {i > 0 && ", "}
                  <code>{n}</code>
                </span>
              ))}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
