import type { PipelineNode } from "@sluice/client";
import { useEffect, useMemo, useState } from "react";
import { Link, useParams } from "react-router";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { StatusBadge } from "../components/StatusBadge";
import { isApiStatus, useOp } from "../lib/api";
import { NodeDataDialog } from "./run/NodeDataDialog";
import { NodeTable } from "./run/NodeTable";
import { useRunActions } from "./run/RunActions";
import { RunLogView } from "./run/RunLog";
import { RunSummary } from "./run/RunSummary";
import { Timeline } from "./run/Timeline";
import { useNow } from "./run/useNow";
import "./run/run.css";

/** `/runs/{id}`: a run's facts, live node states, Gantt timeline, live log tail and each node's output. */
export default function RunView() {
  const { id = "" } = useParams();
  // keyed by id: moving to another run starts from a clean log, filters and selection
  return <RunPage key={id} runId={id} />;
}

function RunPage({ runId }: { runId: string }) {
  const runQuery = useOp("getRun", { params: { run_id: runId } });
  // the log loads alongside the run (the log view reads the same query; this one never re-renders the page)
  useOp("runLogs", { params: { run_id: runId } }, { staleTime: Infinity, notifyOnChangeProps: [] });
  const run = runQuery.data;
  const pipelineQuery = useOp(
    "getPipeline",
    { params: { id: run?.pipeline_id ?? "" } },
    { enabled: run !== undefined, retry: false, staleTime: 60_000 },
  );
  const active = run?.status === "pending" || run?.status === "running";
  const now = useNow(active);
  const [logNode, setLogNode] = useState("");
  const [previewNode, setPreviewNode] = useState<string | null>(null);
  const actions = useRunActions(run);

  const nodes = useMemo(() => {
    const map = new Map<string, PipelineNode>();
    for (const n of pipelineQuery.data?.nodes ?? []) map.set(n.id, n);
    return map;
  }, [pipelineQuery.data]);
  const nodeIds = useMemo(() => run?.node_runs.map((n) => n.node_id) ?? [], [run]);

  const pipelineName = pipelineQuery.data?.name;
  useEffect(() => {
    document.title = `${pipelineName ? `${pipelineName} · ` : ""}Run ${runId} · Sluice`;
  }, [pipelineName, runId]);

  if (runQuery.isPending) return <Loading label="Loading run" />;
  if (!run) {
    return (
      <>
        <PageHeader title={isApiStatus(runQuery.error, 404) ? "Run not found" : "Run"} />
        <ErrorBox error={runQuery.error} />
        <p>
          <Link to="/">← Back to the dashboard</Link>
        </p>
      </>
    );
  }

  const showLogsOf = (nodeId: string) => {
    setLogNode(nodeId);
    document.getElementById("run-log-title")?.scrollIntoView({ behavior: "smooth", block: "start" });
  };
  const pipelineMissing = isApiStatus(pipelineQuery.error, 404);

  return (
    <div className="run-page">
      <nav className="run-crumbs" aria-label="Breadcrumb">
        <Link to="/pipelines">Pipelines</Link>
        {" / "}
        {pipelineMissing ? (
          <span>{run.pipeline_id}</span>
        ) : (
          <Link to={`/pipelines/${encodeURIComponent(run.pipeline_id)}?tab=runs`}>{pipelineName ?? "pipeline"}</Link>
        )}
        {" / "}
        <span aria-current="page">run {run.id.slice(-8)}</span>
      </nav>
      <PageHeader
        title={
          <span className="run-title">
            {pipelineMissing ? (
              <span title="This pipeline no longer exists">{run.pipeline_id} (deleted pipeline)</span>
            ) : (
              <Link to={`/pipelines/${encodeURIComponent(run.pipeline_id)}`} title="Open the pipeline">
                {pipelineName ?? (pipelineQuery.isPending ? "…" : run.pipeline_id)}
              </Link>
            )}
            <StatusBadge status={run.status} />
          </span>
        }
        sub={
          <>
            Run <span className="mono">{run.id}</span> · {run.trigger}
          </>
        }
        actions={actions.buttons}
      />
      {runQuery.error && <ErrorBox error={runQuery.error} title="Showing older state; refresh failed" />}
      {actions.errors}
      {run.error && (
        <div className="error-box run-error">
          <strong>Run {run.status === "failed" ? "failed" : "error"}: </strong>
          {run.error}
        </div>
      )}
      <RunSummary run={run} now={now} />
      <section className="panel" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <Timeline run={run} now={now} selected={logNode} onSelect={showLogsOf} />
      </section>
      <section className="panel" aria-labelledby="nodes-title">
        <h2 id="nodes-title">Nodes</h2>
        <NodeTable
          nodeRuns={run.node_runs}
          nodes={nodes}
          now={now}
          selected={logNode}
          onPreview={setPreviewNode}
          onLogs={showLogsOf}
        />
      </section>
      <RunLogView runId={run.id} nodeIds={nodeIds} node={logNode} onNode={setLogNode} />
      <NodeDataDialog runId={run.id} nodeId={previewNode} onClose={() => setPreviewNode(null)} />
    </div>
  );
}
