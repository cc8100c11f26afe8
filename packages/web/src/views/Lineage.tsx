import type { LineageGraph } from "@sluice/client";
import { lazy, Suspense, useMemo, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { useOp } from "../lib/api";
import { Legend } from "./lineage/Legend";
import "./lineage/lineage.css";
import { KINDS, lineageView, pipelineIdOf, pipelinesAround } from "./lineage/model";

const DagGraph = lazy(() => import("../components/graph/DagGraph"));

export default function LineageView() {
  const lineage = useOp("lineage");
  const graph = lineage.data;
  return (
    <>
      <PageHeader
        title="Lineage"
        sub="Where data comes from and goes: tables, files and APIs read and written by pipelines, and the connections and variables they use."
      />
      <ErrorBox error={lineage.error} title="Could not load the lineage" />
      {lineage.isPending && <Loading label="Loading the lineage" />}
      {graph && graph.nodes.length === 0 && (
        <div className="panel empty">
          No lineage yet. Pipelines appear here once their nodes read or write tables, files or APIs, or use connections
          and variables.
        </div>
      )}
      {graph && graph.nodes.length > 0 && <LineageGraphView graph={graph} />}
    </>
  );
}

function LineageGraphView({ graph }: { graph: LineageGraph }) {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const query = params.get("q") ?? "";
  const only = params.get("only") === "1";
  const [hidden, setHidden] = useState<ReadonlySet<string>>(() => new Set());
  const [selected, setSelected] = useState<string>();

  const setParam = (key: string, value: string | undefined) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace: true },
    );

  const view = useMemo(() => lineageView(graph, { query, hidden, only }), [graph, query, hidden, only]);
  const byId = useMemo(() => new Map(graph.nodes.map((n) => [n.id, n])), [graph]);
  const selectedNode = selected ? byId.get(selected) : undefined;

  const onSelect = (id: string) => {
    const node = byId.get(id);
    const pipelineId = node && pipelineIdOf(node);
    if (pipelineId) navigate(`/pipelines/${encodeURIComponent(pipelineId)}`);
    else setSelected(id);
  };
  const toggle = (kind: string) =>
    setHidden((prev) => {
      const next = new Set(prev);
      if (next.has(kind)) next.delete(kind);
      else next.add(kind);
      return next;
    });

  const height = Math.max(420, window.innerHeight - 230);
  return (
    <>
      <div className="lineage-toolbar">
        <input
          type="search"
          aria-label="Search the lineage"
          placeholder="Search tables, pipelines, connections…"
          value={query}
          onChange={(e) => setParam("q", e.target.value || undefined)}
        />
        <label className="inline">
          <input
            type="checkbox"
            checked={only}
            onChange={(e) => setParam("only", e.target.checked ? "1" : undefined)}
          />
          Only matches and their neighbours
        </label>
        {query.trim() && (
          <span className="muted" role="status">
            {view.matches} {view.matches === 1 ? "match" : "matches"}
          </span>
        )}
        <Legend graph={graph} hidden={hidden} onToggle={toggle} />
      </div>
      <div className={`lineage-body${selectedNode ? "" : " no-details"}`}>
        {view.nodes.length === 0 ? (
          <div className="panel empty">Nothing matches: change the search or show more kinds.</div>
        ) : (
          <Suspense fallback={<Loading label="Loading the graph" />}>
            <DagGraph
              nodes={view.nodes}
              edges={view.edges}
              selected={selected}
              onSelect={onSelect}
              height={height}
              label="Lineage graph"
            />
          </Suspense>
        )}
        {selectedNode && (
          <aside className="panel lineage-details" aria-label="Selected node">
            <div className="row" style={{ justifyContent: "space-between" }}>
              <h2>{selectedNode.name}</h2>
              <button type="button" className="ghost" onClick={() => setSelected(undefined)} aria-label="Close">
                ×
              </button>
            </div>
            <div className="muted">{KINDS.find((k) => k.kind === selectedNode.type)?.label ?? selectedNode.type}</div>
            <Around graph={graph} id={selectedNode.id} names={byId} />
          </aside>
        )}
      </div>
    </>
  );
}

function Around({ graph, id, names }: { graph: LineageGraph; id: string; names: Map<string, { name: string }> }) {
  const { reads, writes } = pipelinesAround(graph, id);
  const list = (ids: string[]) => (
    <ul>
      {ids.map((p) => (
        <li key={p}>
          <Link to={`/pipelines/${encodeURIComponent(p)}`}>{names.get(`pipeline:${p}`)?.name ?? p}</Link>
        </li>
      ))}
    </ul>
  );
  return (
    <>
      {reads.length > 0 && (
        <>
          <h3 style={{ marginTop: 12 }}>Used by</h3>
          {list(reads)}
        </>
      )}
      {writes.length > 0 && (
        <>
          <h3 style={{ marginTop: 12 }}>Written by</h3>
          {list(writes)}
        </>
      )}
    </>
  );
}
