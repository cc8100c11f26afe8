import type { NodeRun, PipelineNode } from "@sluice/client";
import { Link } from "react-router";
import { StatusBadge } from "../../components/StatusBadge";
import { Time } from "../../components/Time";
import { formatDuration } from "../../lib/time";

const SETTINGS = ["max_retries", "retry_delay", "timeout"] as const;

/** The selected node: its type, execution settings and config, and how it went in the selected run. */
export function NodePanel({
  node,
  nodeRun,
  runId,
  upstream,
  downstream,
  onClose,
}: {
  node: PipelineNode;
  nodeRun: NodeRun | undefined;
  runId: string | undefined;
  upstream: string[];
  downstream: string[];
  onClose: () => void;
}) {
  const settings = SETTINGS.filter((k) => node[k] !== undefined || node.config[k] !== undefined).map(
    (k) => [k, node[k] ?? node.config[k]] as const,
  );
  return (
    <aside className="pl-node-panel panel" aria-label={`Node ${node.name ?? node.id}`}>
      <header className="pl-node-head">
        <div>
          <h3>{node.name ?? node.id}</h3>
          <div className="muted">
            <code>{node.id}</code> · {node.type}
          </div>
        </div>
        <button type="button" className="ghost" onClick={onClose} aria-label="Close node details">
          ×
        </button>
      </header>
      {runId && (
        <section>
          <h4>In the selected run</h4>
          {nodeRun ? (
            <dl className="pl-dl">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={nodeRun.status} />
                {nodeRun.attempt > 1 && <span className="muted"> attempt {nodeRun.attempt}</span>}
              </dd>
              <dt>Rows</dt>
              <dd className="num-left">{nodeRun.row_count.toLocaleString()}</dd>
              <dt>Duration</dt>
              <dd>{formatDuration(nodeRun.duration_ms)}</dd>
              <dt>Started</dt>
              <dd>
                <Time value={nodeRun.started_at} />
              </dd>
              {nodeRun.error && (
                <>
                  <dt>Error</dt>
                  <dd className="pl-node-error">{nodeRun.error}</dd>
                </>
              )}
            </dl>
          ) : (
            <p className="muted">Not run in this run.</p>
          )}
          <Link to={`/runs/${encodeURIComponent(runId)}`}>Open run →</Link>
        </section>
      )}
      {(upstream.length > 0 || downstream.length > 0) && (
        <section>
          <dl className="pl-dl">
            <dt>Upstream</dt>
            <dd>{upstream.length ? upstream.join(", ") : <span className="muted">none (source)</span>}</dd>
            <dt>Downstream</dt>
            <dd>{downstream.length ? downstream.join(", ") : <span className="muted">none</span>}</dd>
          </dl>
        </section>
      )}
      {settings.length > 0 && (
        <section>
          <h4>Execution</h4>
          <dl className="pl-dl">
            {settings.map(([k, v]) => (
              <div key={k} className="pl-dl-row">
                <dt>{k}</dt>
                <dd>{String(v)}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      <section>
        <h4>Config</h4>
        <pre className="pl-json">{JSON.stringify(node.config, null, 2)}</pre>
      </section>
    </aside>
  );
}
