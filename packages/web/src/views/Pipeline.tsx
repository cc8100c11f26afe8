import type { KeyboardEvent } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { isApiStatus, useOp } from "../lib/api";
import { CalendarTab } from "./pipeline/CalendarTab";
import { DepsTab } from "./pipeline/DepsTab";
import { GraphTab } from "./pipeline/GraphTab";
import { PipelineHeader } from "./pipeline/PipelineHeader";
import { RunsGrid, gridRunsInput } from "./pipeline/RunsGrid";
import { runItems } from "./pipeline/runs";
import { RunsTab } from "./pipeline/RunsTab";
import { ValidateTab } from "./pipeline/ValidateTab";
import { VersionsTab } from "./pipeline/VersionsTab";
import { WebhookTab } from "./pipeline/WebhookTab";
import "./pipeline/pipeline.css";

const RECENT_RUNS = 100;

const TABS = [
  { id: "graph", label: "Graph" },
  { id: "grid", label: "Grid" },
  { id: "runs", label: "Runs" },
  { id: "validate", label: "Validate" },
  { id: "versions", label: "Versions" },
  { id: "webhook", label: "Webhook" },
  { id: "deps", label: "Dependencies" },
  { id: "calendar", label: "Calendar" },
] as const;
type TabId = (typeof TABS)[number]["id"];

/** `/pipelines/{id}`: the header and actions, then one tab at a time (`?tab=`, so every tab has its own URL). */
export default function PipelineView() {
  const { id = "" } = useParams();
  const [search, setSearch] = useSearchParams();
  const tabParam = search.get("tab");
  const tab: TabId = TABS.some((t) => t.id === tabParam) ? (tabParam as TabId) : "graph";
  const pipeline = useOp("getPipeline", { params: { id } });
  // the recent runs feed the graph's run picker and the header's last status (the grid reads its own, with node runs)
  const recent = useOp("listRuns", { params: { id }, query: { per_page: RECENT_RUNS } });
  const runs = runItems(recent.data).items;
  // the grid's runs are asked for together with the pipeline, not after it arrived
  useOp("listRuns", gridRunsInput(id), { enabled: tab === "grid" });

  const selectTab = (next: TabId) =>
    setSearch(
      (prev) => {
        const params = new URLSearchParams(prev);
        if (next === "graph") params.delete("tab");
        else params.set("tab", next);
        return params;
      },
      { replace: true },
    );
  const onTabKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = TABS.findIndex((t) => t.id === tab);
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = TABS[(i + step + TABS.length) % TABS.length]!;
    selectTab(next.id);
    e.currentTarget.querySelector<HTMLElement>(`#tab-${next.id}`)?.focus();
  };

  if (pipeline.isPending) return <Loading label="Loading pipeline" />;
  if (pipeline.error || !pipeline.data) {
    return (
      <div>
        <PageHeader title={isApiStatus(pipeline.error, 404) ? "Pipeline not found" : "Pipeline"} />
        <ErrorBox error={pipeline.error} />
        <Link to="/pipelines">← All pipelines</Link>
      </div>
    );
  }
  const p = pipeline.data;
  return (
    <div className="pl-page">
      <nav className="pl-crumbs" aria-label="Breadcrumb">
        <Link to="/pipelines">Pipelines</Link> <span aria-hidden="true">/</span> <span>{p.name}</span>
      </nav>
      <PipelineHeader pipeline={p} lastStatus={runs[0]?.status ?? null} />
      <div className="tabs pl-tabs" role="tablist" aria-label="Pipeline sections" onKeyDown={onTabKey}>
        {TABS.map((t) => (
          <button
            key={t.id}
            id={`tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => selectTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <ErrorBox error={recent.error} title="Could not load recent runs" />
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === "graph" && <GraphTab pipeline={p} runs={runs} />}
        {tab === "grid" && <RunsGrid pipeline={p} />}
        {tab === "runs" && <RunsTab pipelineId={p.id} />}
        {tab === "validate" && <ValidateTab pipelineId={p.id} />}
        {tab === "versions" && <VersionsTab pipeline={p} />}
        {tab === "webhook" && <WebhookTab pipeline={p} />}
        {tab === "deps" && <DepsTab pipelineId={p.id} />}
        {tab === "calendar" && <CalendarTab pipelineId={p.id} />}
      </div>
    </div>
  );
}
