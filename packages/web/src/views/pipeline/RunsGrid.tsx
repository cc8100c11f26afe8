import type { Pipeline, RunListEntry } from "@sluice/client";
import { useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef, type KeyboardEvent, type MouseEvent } from "react";
import { useNavigate } from "react-router";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { opKey, useOp } from "../../lib/api";
import { useLiveEvents } from "../../lib/live";
import { formatLocal, formatUtc } from "../../lib/time";
import { runItems } from "./runs";
import { basePath } from "../../lib/base";
import { topoOrder } from "./topo";

export const GRID_MAX_RUNS = 100;
/** One row: a 22 px cell and the 2 px gap (pipeline.css). */
const ROW_PX = 24;
export const GRID_MAX_NODES = 50;

const LEGEND = ["success", "failed", "running", "pending", "skipped", "cancelled", "not run"];
/** Node events of a running pipeline come in bursts: the grid refetches at most this often for them. */
const NODE_EVENT_REFRESH_MS = 1000;

/**
 * Runs × nodes: one row per recent run (newest first), one column per node (upstream first), each cell the node's
 * status in that run (colour, with the word in its title and accessible name); a cell opens its run. The runs and all
 * their node runs come in one request (`listRuns` with `include=nodes`). Plain elements, one per cell, and no per-cell
 * components: 100 × 50 renders in a few milliseconds.
 */
/** What the grid reads: the recent runs with their node runs, in one request (also started early by the page). */
export function gridRunsInput(pipelineId: string) {
  return { params: { id: pipelineId }, query: { per_page: GRID_MAX_RUNS, include: "nodes" as const } };
}

export function RunsGrid({ pipeline }: { pipeline: Pipeline }) {
  const navigate = useNavigate();
  const input = gridRunsInput(pipeline.id);
  // run events refresh every runs list (lib/live.tsx); node events only the run pages, so the grid follows its own
  const list = useOp("listRuns", input);
  useNodeEventRefresh(pipeline.id, opKey("listRuns", input));
  const shown = runItems(list.data).items;
  const ordered = useMemo(() => topoOrder(pipeline.nodes, pipeline.edges), [pipeline.nodes, pipeline.edges]);
  const nodes = ordered.slice(0, GRID_MAX_NODES);

  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const a = (e.target as HTMLElement).closest<HTMLAnchorElement>("a[data-run]");
    if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(`/runs/${encodeURIComponent(a.dataset.run!)}`);
  };
  // rows are virtualized: only those in (or near) the scrolled view are in the page
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_PX,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = items.length > 0 ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const el = e.target as HTMLElement;
    if (el.dataset.r === undefined) return;
    let r = Number(el.dataset.r);
    let c = Number(el.dataset.c);
    if (e.key === "ArrowRight") c++;
    else if (e.key === "ArrowLeft") c--;
    else if (e.key === "ArrowDown") r++;
    else if (e.key === "ArrowUp") r--;
    else if (e.key === "Home") c = 0;
    else if (e.key === "End") c = nodes.length - 1;
    else return;
    if (r < 0 || r >= shown.length || c < 0 || c >= nodes.length) return;
    e.preventDefault();
    const grid = e.currentTarget;
    const focus = () => grid.querySelector<HTMLElement>(`[data-r="${r}"][data-c="${c}"]`)?.focus();
    if (grid.querySelector(`[data-r="${r}"]`)) return focus();
    virtualizer.scrollToIndex(r);
    requestAnimationFrame(() => requestAnimationFrame(focus));
  };

  if (list.isPending) return <Loading label="Loading runs" />;
  if (list.error) return <ErrorBox error={list.error} title="Could not load runs" />;
  if (shown.length === 0) return <div className="panel empty">No runs yet: trigger one to fill the grid.</div>;
  return (
    <div className="pl-grid-tab">
      <p className="muted pl-help">
        {shown.length} most recent run{shown.length === 1 ? "" : "s"} (newest first) × {nodes.length} node
        {nodes.length === 1 ? "" : "s"}
        {ordered.length > nodes.length && ` (first ${GRID_MAX_NODES} of ${ordered.length} in dependency order)`}. Click
        a cell to open its run; arrow keys move between cells.
      </p>
      <div className="panel pl-grid-scroll" ref={scrollRef}>
        <div
          role="grid"
          aria-label="Runs by node"
          aria-rowcount={shown.length + 1}
          aria-colcount={nodes.length + 1}
          className="pl-grid"
          style={{ gridTemplateColumns: `minmax(190px, max-content) repeat(${nodes.length}, 24px)` }}
          onClick={onClick}
          onKeyDown={onKeyDown}
        >
          <div role="row" className="pl-grid-row">
            <div role="columnheader" className="pl-grid-corner">
              Run
            </div>
            {nodes.map((n) => (
              <div key={n.id} role="columnheader" className="pl-grid-colhead" title={`${n.name ?? n.id} (${n.type})`}>
                <span>{n.name || n.id}</span>
              </div>
            ))}
          </div>
          {before > 0 && <div aria-hidden="true" className="pl-grid-spacer" style={{ height: before }} />}
          <GridRows
            runs={shown}
            rows={items.map((item) => item.index)}
            nodeIds={nodes.map((n) => n.id)}
            nodeNames={nodes.map((n) => n.name || n.id)}
          />
          {after > 0 && <div aria-hidden="true" className="pl-grid-spacer" style={{ height: after }} />}
        </div>
      </div>
      <div className="pl-legend" aria-label="Legend">
        {LEGEND.map((s) => (
          <span key={s} className="pl-legend-item">
            <span className={`pl-cell st-${s.replace(" ", "-")}`} aria-hidden="true" /> {s}
          </span>
        ))}
      </div>
    </div>
  );
}

/** The body: plain elements only (the one place with thousands of them). */
const GridRows = memo(function GridRows({
  runs,
  rows,
  nodeIds,
  nodeNames,
}: {
  runs: RunListEntry[];
  /** The indexes of the rows to draw. */
  rows: number[];
  nodeIds: string[];
  nodeNames: string[];
}) {
  return (
    <>
      {rows.map((r) => {
        const run = runs[r]!;
        const states = new Map(run.node_runs?.map((n) => [n.node_id, n.status]));
        const when = formatLocal(run.created_at);
        const href = `${basePath}/runs/${encodeURIComponent(run.id)}`;
        return (
          <div role="row" key={run.id} className="pl-grid-row" aria-rowindex={r + 2}>
            <div role="rowheader" className="pl-grid-rowhead">
              <a href={href} data-run={run.id} title={`${formatUtc(run.created_at)} · ${run.trigger}`}>
                {when}
              </a>
              <span className="muted mono pl-grid-runid">{run.id.slice(-6)}</span>
              <span className={`status status-${run.status}`}>{run.status}</span>
            </div>
            {nodeIds.map((id, c) => {
              const status = states.get(id) ?? "not run";
              const label = `${nodeNames[c]} in run of ${when}: ${status}`;
              return (
                <a
                  key={id}
                  role="gridcell"
                  href={href}
                  data-run={run.id}
                  data-r={r}
                  data-c={c}
                  tabIndex={r === 0 && c === 0 ? 0 : -1}
                  className={`pl-cell st-${status.replace(" ", "-")}`}
                  title={label}
                  aria-label={label}
                />
              );
            })}
          </div>
        );
      })}
    </>
  );
});

/** Refetches the grid (at most every NODE_EVENT_REFRESH_MS) while node events of this pipeline arrive. */
function useNodeEventRefresh(pipelineId: string, queryKey: readonly unknown[]): void {
  const qc = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const key = useRef(queryKey);
  useEffect(() => {
    key.current = queryKey;
  });
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  useLiveEvents((event) => {
    if (!event.type.startsWith("node.") || event.pipeline_id !== pipelineId || timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void qc.invalidateQueries({ queryKey: key.current, exact: true });
    }, NODE_EVENT_REFRESH_MS);
  });
}
