import type { RunWithNodes } from "@sluice/client";
import { Time } from "../../components/Time";
import { formatDuration } from "../../lib/time";
import { elapsedMs } from "./useNow";

/** The facts of a run: status, trigger, times, duration, parameters; its error when it failed. */
export function RunSummary({ run, now }: { run: RunWithNodes; now: number }) {
  const duration = elapsedMs(run.started_at, run.finished_at, now);
  const params = Object.entries(run.params ?? {});
  const done = run.node_runs.filter((n) => n.finished_at !== null || n.status === "skipped").length;
  return (
    <section className="panel run-summary" aria-label="Run details">
      <dl className="facts">
        <div>
          <dt>Trigger</dt>
          <dd>{run.trigger}</dd>
        </div>
        <div>
          <dt>Queued</dt>
          <dd>
            <Time value={run.created_at} />
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <Time value={run.started_at} />
          </dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>
            {run.finished_at ? (
              <Time value={run.finished_at} />
            ) : (
              <span className="muted">{run.status === "running" ? "still running" : "—"}</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd className="tabular">{formatDuration(duration)}</dd>
        </div>
        <div>
          <dt>Nodes</dt>
          <dd className="tabular">
            {done} / {run.node_runs.length} done
          </dd>
        </div>
      </dl>
      <div className="run-params">
        <span className="facts-label">Params</span>
        {params.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          params.map(([k, v]) => (
            <code key={k} className="chip" title={`${k}=${v}`}>
              {k}={v}
            </code>
          ))
        )}
      </div>
    </section>
  );
}
