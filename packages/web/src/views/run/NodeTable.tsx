import type { NodeRun, PipelineNode } from "@sluice/client";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDuration } from "../../lib/time";
import { elapsedMs } from "./useNow";

/** The node runs of a run, live: status word, attempts, rows, duration, error; actions to see data or logs. */
export function NodeTable({
  nodeRuns,
  nodes,
  now,
  selected,
  onPreview,
  onLogs,
}: {
  nodeRuns: NodeRun[];
  nodes: Map<string, PipelineNode>;
  now: number;
  selected: string;
  onPreview: (nodeId: string) => void;
  onLogs: (nodeId: string) => void;
}) {
  if (nodeRuns.length === 0) return <div className="empty">No node runs yet.</div>;
  return (
    <div className="table-scroll node-table-scroll">
      <table className="node-table">
        <thead>
          <tr>
            <th>Node</th>
            <th>Type</th>
            <th>Status</th>
            <th className="num">Attempts</th>
            <th className="num">Rows</th>
            <th className="num">Duration</th>
            <th>Error</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {nodeRuns.map((nr) => {
            const node = nodes.get(nr.node_id);
            const started = nr.started_at !== null;
            return (
              <tr key={nr.id} className={selected === nr.node_id ? "selected" : undefined}>
                <td>
                  <span className="mono">{nr.node_id}</span>
                  {node?.name && node.name !== nr.node_id && <div className="muted small">{node.name}</div>}
                </td>
                <td>{node ? <code>{node.type}</code> : <span className="muted">—</span>}</td>
                <td data-status={nr.status}>
                  <StatusBadge status={nr.status} />
                </td>
                <td className="num">{nr.attempt}</td>
                <td className="num">{started ? nr.row_count.toLocaleString() : "—"}</td>
                <td className="num">
                  {started
                    ? formatDuration(nr.finished_at ? nr.duration_ms : elapsedMs(nr.started_at, null, now))
                    : "—"}
                </td>
                <td className="node-error">{nr.error ? <span title={nr.error}>{nr.error}</span> : ""}</td>
                <td className="row-actions">
                  {nr.status === "success" && (
                    <button type="button" onClick={() => onPreview(nr.node_id)} title={`Output of ${nr.node_id}`}>
                      Preview
                    </button>
                  )}
                  <button type="button" className="ghost" onClick={() => onLogs(nr.node_id)}>
                    Logs
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
