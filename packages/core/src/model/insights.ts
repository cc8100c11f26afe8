import { z } from "zod";
import { clampedIntQuery } from "./common.js";
import type { PipelineSummary } from "./pipeline.js";
import type { Run, RunStatus } from "./run.js";

export const SearchQuerySchema = z.object({
  q: z.string({ error: "q is required" }).trim().min(1, "q must not be empty").max(200, "q is at most 200 characters"),
  limit: clampedIntQuery("limit", 30, 100),
});
export type SearchQuery = z.infer<typeof SearchQuerySchema>;

export interface SearchResult {
  type: "pipeline" | "connection" | "variable";
  id: string;
  name: string;
  description: string;
}

/** `GET /pipelines/summary` entry: the list summary plus last-run statistics and the next scheduled run. */
export interface PipelineRunSummary extends PipelineSummary {
  last_run_status: string | null;
  last_run_at: string | null;
  runs_total: number;
  runs_success: number;
  runs_failed: number;
  /** The zone the schedule runs in (`UTC` when the pipeline names none). */
  schedule_timezone: string;
  /** The next cron slot of an enabled schedule; null when paused, unscheduled or the schedule cannot fire. */
  next_run_at: string | null;
}

export interface TrendEntry {
  date: string;
  success: number;
  failed: number;
  total: number;
}

export interface TopFailingEntry {
  pipeline_id: string;
  name: string;
  fail_count: number;
}

export interface Dashboard {
  pipelines: PipelineRunSummary[];
  recent_runs: (Run & { pipeline_name: string | null })[];
  trends: TrendEntry[];
  top_failing: TopFailingEntry[];
  counters: {
    pipelines: number;
    enabled_pipelines: number;
    runs_total: number;
    active_runs: number;
    queued_runs: number;
  };
}

export interface ImpactEntry {
  pipeline_id: string;
  name: string;
  /** 1 for direct dependents, 2 for theirs, … */
  depth: number;
  via: "depends_on" | "table";
  /** The upstream pipeline id (depends_on) or the shared table (table). */
  detail: string;
}

export interface Impact {
  pipeline_id: string;
  downstream: ImpactEntry[];
}

export interface LineageNode {
  id: string;
  type: "pipeline" | "connection" | "table" | "file" | "api" | "variable";
  name: string;
}

export interface LineageEdge {
  from: string;
  to: string;
  pipeline_id: string;
}

export interface LineageGraph {
  nodes: LineageNode[];
  edges: LineageEdge[];
}

export interface SchedulerStatusEntry {
  pipeline_id: string;
  pipeline_name: string;
  schedule: string | null;
  timezone: string;
  enabled: boolean;
  next_run: string | null;
  last_run: string | null;
}

export interface DependencyStatus {
  pipeline_id: string;
  /** null when the dependency no longer exists. */
  name: string | null;
  last_status: RunStatus | null;
  satisfied: boolean;
}

export interface UsedBy {
  pipeline_id: string;
  name: string;
  node_ids: string[];
}
