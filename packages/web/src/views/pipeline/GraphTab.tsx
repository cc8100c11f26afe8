import type { Pipeline, Run } from "@sluice/client";
import { lazy, Suspense, useMemo } from "react";
import { Link, useSearchParams } from "react-router";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { useOp } from "../../lib/api";
import { formatLocal } from "../../lib/time";
import { NodePanel } from "./NodePanel";
import { TERMINAL } from "./runs";

const DagGraph = lazy(() => import("../../components/graph/DagGraph").then((m) => ({ default: m.DagGraph })));

/**
 * The pipeline's DAG, coloured by the node states of the selected run (`?run=`, default the latest), with the
 * clicked node's config in a side panel (`?node=`).
 */
export function GraphTab({ pipeline, runs }: { pipeline: Pipeline; runs: Run[] }) {
  const [search, setSearch] = useSearchParams();
  const runId = search.get("run") ?? runs[0]?.id;
  const nodeId = search.get("node") ?? undefined;
  const set = (k: string, v: string | undefined) =>
    setSearch(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (v === undefined) next.delete(k);
        else next.set(k, v);
        return next;
      },
      { replace: true },
    );

  const run = useOp("getRun", { params: { run_id: runId ?? "" } }, { enabled: runId !== undefined });
  const nodeRuns = useMemo(() => new Map((run.data?.node_runs ?? []).map((n) => [n.node_id, n])), [run.data]);
  const nodes = useMemo(
    () =>
      pipeline.nodes.map((n) => ({
        id: n.id,
        label: n.name || n.id,
        sublabel: n.type,
        status: run.data
          ? (nodeRuns.get(n.id)?.status ?? (TERMINAL.has(run.data.status) ? "not run" : "pending"))
          : undefined,
      })),
    [pipeline.nodes, nodeRuns, run.data],
  );
  const edges = useMemo(() => pipeline.edges.map((e) => ({ source: e.from, target: e.to })), [pipeline.edges]);
  const selectedNode = pipeline.nodes.find((n) => n.id === nodeId);
  const runInList = runs.some((r) => r.id === runId);

  return (
    <div className="pl-graph-tab">
      <div className="pl-toolbar">
        <label className="inline">
          Colour by run
          <select value={runId ?? ""} onChange={(e) => set("run", e.target.value || undefined)} disabled={!runs.length}>
            {runs.length === 0 && <option value="">no runs yet</option>}
            {!runInList && runId && <option value={runId}>{runId}</option>}
            {runs.map((r, i) => (
              <option key={r.id} value={r.id}>
                {formatLocal(r.created_at)} — {r.status}
                {i === 0 ? " (latest)" : ""}
              </option>
            ))}
          </select>
        </label>
        {run.data && (
          <>
            <StatusBadge status={run.data.status} />
            <Link to={`/runs/${encodeURIComponent(run.data.id)}`}>Open run</Link>
          </>
        )}
        <span className="muted pl-hint">Click a node to see its config.</span>
      </div>
      <ErrorBox error={run.error} title="Could not load the run" />
      <div className={selectedNode ? "pl-graph-split" : ""}>
        <div className="panel pl-graph-box">
          {pipeline.nodes.length === 0 ? (
            <div className="empty">This pipeline has no nodes.</div>
          ) : (
            <Suspense fallback={<Loading label="Drawing graph" />}>
              <DagGraph
                nodes={nodes}
                edges={edges}
                selected={nodeId}
                onSelect={(id) => set("node", id === nodeId ? undefined : id)}
                height={Math.min(720, Math.max(440, 160 + pipeline.nodes.length * 30))}
                label="Pipeline graph"
              />
            </Suspense>
          )}
        </div>
        {selectedNode && (
          <NodePanel
            node={selectedNode}
            nodeRun={nodeRuns.get(selectedNode.id)}
            runId={run.data?.id}
            upstream={pipeline.edges.filter((e) => e.to === selectedNode.id).map((e) => e.from)}
            downstream={pipeline.edges.filter((e) => e.from === selectedNode.id).map((e) => e.to)}
            onClose={() => set("node", undefined)}
          />
        )}
      </div>
    </div>
  );
}
