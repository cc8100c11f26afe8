import type { RunAccepted } from "@sluice/client";
import { useCallback, useDeferredValue, useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { Pager } from "../components/Pager";
import { useOp, useOpMutation } from "../lib/api";
import { Can, useSession } from "../lib/session";
import { ErrorBox } from "../components/ErrorBox";
import { BulkBar } from "./pipelines/BulkBar";
import { ImportDialog, NEW_PIPELINE_TEMPLATE } from "./pipelines/ImportDialog";
import { PipelineTable, type RowActions } from "./pipelines/PipelineTable";
import { filterRows, sortRows, STATUS_FILTERS, type PipelineRow, type SortKey } from "./pipelines/rows";
import "./pipeline/pipeline.css";

const PAGE_SIZES = [25, 50, 100, 250, 500, 1000];
const DEFAULT_PAGE_SIZE = 50;

/**
 * `/pipelines`: every pipeline with its last and next run (`GET /pipelines/summary`, one call). Search, filters,
 * sorting and paging apply to that list in the browser, so the status filter sees every pipeline; the state lives in
 * the URL, so a filtered page can be shared.
 */
export default function PipelinesView() {
  const { can } = useSession();
  const [search, setSearch] = useSearchParams();
  const q = search.get("q") ?? "";
  const status = search.get("status") ?? "";
  const enabled = search.get("enabled") ?? "";
  const sort = (search.get("sort") as SortKey | null) ?? "name";
  const sizeParam = Number(search.get("size"));
  const limit = PAGE_SIZES.includes(sizeParam) ? sizeParam : DEFAULT_PAGE_SIZE;
  const offset = Math.max(0, Number(search.get("offset")) || 0);

  const setParam = useCallback(
    (changes: Record<string, string | number | null>) => {
      setSearch(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [k, v] of Object.entries(changes)) {
            if (v === null || v === "" || v === 0) next.delete(k);
            else next.set(k, String(v));
          }
          return next;
        },
        // moving between pages is a step Back undoes; filtering as one types replaces the entry
        { replace: !("offset" in changes) },
      );
    },
    [setSearch],
  );

  const summary = useOp("pipelineSummary");
  const deferredQ = useDeferredValue(q);
  const all: PipelineRow[] = useMemo(() => summary.data ?? [], [summary.data]);
  const filtered = useMemo(
    () => sortRows(filterRows(all, deferredQ, status, enabled), sort),
    [all, deferredQ, status, enabled, sort],
  );
  const pageRows = useMemo(() => filtered.slice(offset, offset + limit), [filtered, offset, limit]);
  const names = useMemo(() => new Map(all.map((r) => [r.id, r.name])), [all]);

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [importOpen, setImportOpen] = useState<null | "import" | "new">(null);
  const [queued, setQueued] = useState<{ run: RunAccepted; name: string } | null>(null);

  const patch = useOpMutation("patchPipeline", ["pipelineSummary", "listPipelines", "getPipeline"]);
  const trigger = useOpMutation("triggerRun", ["pipelineSummary", "listRuns"]);
  const busy = useMemo(() => {
    const ids = new Set<string>();
    if (patch.isPending && patch.variables) ids.add(patch.variables.params.id);
    if (trigger.isPending && trigger.variables) ids.add(trigger.variables.params.id);
    return ids;
  }, [patch.isPending, patch.variables, trigger.isPending, trigger.variables]);

  const actions: RowActions = useMemo(
    () => ({
      canToggle: can("patchPipeline"),
      canTrigger: can("triggerRun"),
      canSelect: can("bulkPipelines") || can("triggerRun"),
      busy,
      onToggleEnabled: (row: PipelineRow) => patch.mutate({ params: { id: row.id }, body: { enabled: !row.enabled } }),
      onTrigger: (row: PipelineRow) => {
        setQueued(null);
        trigger.mutate(
          { params: { id: row.id }, body: { params: {} } },
          { onSuccess: (run) => setQueued({ run, name: row.name }) },
        );
      },
      onSelect: (id: string, on: boolean) =>
        setSelected((prev) => {
          const next = new Set(prev);
          if (on) next.add(id);
          else next.delete(id);
          return next;
        }),
    }),
    // the mutation objects change identity every render; their mutate functions do not
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [can, busy, patch.mutate, trigger.mutate],
  );

  const onSelectAll = (on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const r of pageRows) {
        if (on) next.add(r.id);
        else next.delete(r.id);
      }
      return next;
    });

  const filtersActive = q !== "" || status !== "" || enabled !== "";

  return (
    <div className="pl-page">
      <PageHeader
        title="Pipelines"
        sub={summary.data ? `${all.length} pipeline${all.length === 1 ? "" : "s"}` : undefined}
        actions={
          <Can op="importPipeline">
            <button type="button" onClick={() => setImportOpen("import")}>
              Import
            </button>
            <button type="button" className="primary" onClick={() => setImportOpen("new")}>
              New pipeline
            </button>
          </Can>
        }
      />

      <div className="pl-toolbar" role="search">
        <label className="pl-search">
          <span className="pl-sr-only">Search pipelines</span>
          <input
            type="search"
            placeholder="Search name, description, tag…"
            value={q}
            onChange={(e) => setParam({ q: e.target.value, offset: 0 })}
          />
        </label>
        <label className="inline">
          Last status
          <select value={status} onChange={(e) => setParam({ status: e.target.value, offset: 0 })}>
            <option value="">any</option>
            {STATUS_FILTERS.map((s) => (
              <option key={s} value={s}>
                {s === "never" ? "never run" : s}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Schedule
          <select value={enabled} onChange={(e) => setParam({ enabled: e.target.value, offset: 0 })}>
            <option value="">all</option>
            <option value="enabled">enabled</option>
            <option value="disabled">disabled</option>
          </select>
        </label>
        <label className="inline">
          Sort by
          <select value={sort} onChange={(e) => setParam({ sort: e.target.value === "name" ? null : e.target.value })}>
            <option value="name">name</option>
            <option value="last_run">last run</option>
            <option value="next_run">next run</option>
          </select>
        </label>
        <label className="inline">
          Per page
          <select value={limit} onChange={(e) => setParam({ size: Number(e.target.value), offset: 0 })}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        {filtersActive && (
          <button type="button" className="ghost" onClick={() => setParam({ q: null, status: null, enabled: null })}>
            Clear filters
          </button>
        )}
      </div>

      <ErrorBox error={summary.error} title="Could not load pipelines" />
      <ErrorBox error={patch.error} title="Could not change the schedule" />
      <ErrorBox error={trigger.error} title="Could not trigger the run" />
      {queued && (
        <div className="ok-box pl-flash" role="status">
          Run queued for {queued.name}. <Link to={`/runs/${encodeURIComponent(queued.run.id)}`}>Open run</Link>
          <button type="button" className="ghost" aria-label="Dismiss" onClick={() => setQueued(null)}>
            ×
          </button>
        </div>
      )}

      <BulkBar
        selected={[...selected]}
        names={names}
        onDeselect={(ids) => {
          // deleted rows (or a cleared selection) leave; the rest stays for the next action
          const gone = new Set(ids);
          setSelected((prev) => new Set([...prev].filter((id) => !gone.has(id))));
        }}
      />

      {summary.isPending ? (
        <Loading label="Loading pipelines" />
      ) : summary.data && all.length === 0 ? (
        <div className="panel empty">
          <p>No pipelines yet.</p>
          <Can op="importPipeline">
            <p>
              <button type="button" className="primary" onClick={() => setImportOpen("new")}>
                New pipeline
              </button>{" "}
              or{" "}
              <button type="button" onClick={() => setImportOpen("import")}>
                Import
              </button>{" "}
              one from JSON.
            </p>
          </Can>
        </div>
      ) : summary.data && filtered.length === 0 ? (
        <div className="panel empty">No pipeline matches these filters.</div>
      ) : summary.data ? (
        <div className="panel pl-table-panel">
          <PipelineTable rows={pageRows} selected={selected} actions={actions} onSelectAll={onSelectAll} />
          <div className="pl-table-foot">
            <span className="muted">
              {filtered.length === all.length ? `${all.length} pipelines` : `${filtered.length} of ${all.length} match`}
            </span>
            <Pager total={filtered.length} limit={limit} offset={offset} onOffset={(o) => setParam({ offset: o })} />
          </div>
        </div>
      ) : null}

      <ImportDialog
        open={importOpen !== null}
        title={importOpen === "new" ? "New pipeline from JSON" : "Import pipeline"}
        initialText={importOpen === "new" ? NEW_PIPELINE_TEMPLATE : ""}
        onClose={() => setImportOpen(null)}
      />
    </div>
  );
}
