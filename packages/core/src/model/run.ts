import { z } from "zod";
import { clampedIntQuery, PaginationQuerySchema } from "./common.js";
import { TERMINAL_RUN_STATUSES } from "./event-types.js";

export const RUN_STATUSES = ["pending", "running", ...TERMINAL_RUN_STATUSES] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const NODE_RUN_STATUSES = ["pending", "running", "success", "failed", "skipped", "cancelled"] as const;
export type NodeRunStatus = (typeof NODE_RUN_STATUSES)[number];

export const RUN_TRIGGERS = ["manual", "schedule", "catchup", "webhook", "backfill", "api"] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const LOG_LEVELS = ["debug", "info", "warning", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface NodeRun {
  id: string;
  run_id: string;
  node_id: string;
  status: NodeRunStatus;
  attempt: number;
  row_count: number;
  duration_ms: number;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
}

export interface Run {
  id: string;
  pipeline_id: string;
  status: RunStatus;
  trigger: RunTrigger;
  params: Record<string, string>;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface RunWithNodes extends Run {
  node_runs: NodeRun[];
}

/** An entry of a pipeline's runs list: it carries `node_runs` when the list was asked for with `include=nodes`. */
export type RunListEntry = Run & { node_runs?: NodeRun[] };

/** What a runs list can embed in each run. */
export const RUN_LIST_INCLUDES = ["nodes"] as const;

/** `GET /pipelines/{id}/runs`: pagination, and `include=nodes` for each run's node runs (one query per page). */
export const RunsListQuerySchema = PaginationQuerySchema.extend({
  include: z.enum(RUN_LIST_INCLUDES, { error: `include must be one of ${RUN_LIST_INCLUDES.join(", ")}` }).optional(),
});
export type RunsListQuery = z.infer<typeof RunsListQuerySchema>;

export interface LogEntry {
  run_id: string;
  node_id: string | null;
  level: LogLevel;
  message: string;
  timestamp: string;
}

export const TriggerRunRequestSchema = z.object({ params: z.record(z.string(), z.string()).default({}) }).strict();

export const BackfillRequestSchema = z
  .object({
    start_date: z.iso.date({ error: "start_date must be a date YYYY-MM-DD" }),
    end_date: z.iso.date({ error: "end_date must be a date YYYY-MM-DD" }),
    params: z.record(z.string(), z.string()).optional(),
  })
  .strict();

export interface CalendarDay {
  date: string;
  success: number;
  failed: number;
  total: number;
}

export const LogsQuerySchema = z.object({
  node_id: z.string().min(1).max(128).optional(),
  level: z.enum(LOG_LEVELS, { error: `level must be one of ${LOG_LEVELS.join(", ")}` }).optional(),
});
export type LogsQuery = z.infer<typeof LogsQuerySchema>;

export const CALENDAR_DAYS_DEFAULT = 90;
export const CALENDAR_DAYS_MAX = 365;
export const CalendarQuerySchema = z.object({
  days: clampedIntQuery("days", CALENDAR_DAYS_DEFAULT, CALENDAR_DAYS_MAX),
  /** Counts the runs of this pipeline only (all pipelines without it). */
  pipeline_id: z.string().min(1, "pipeline_id must not be empty").max(128).optional(),
});
export type CalendarQuery = z.infer<typeof CalendarQuerySchema>;

/** Most dates one backfill may queue. */
export const BACKFILL_MAX_DATES = 366;
/** Rows per node a dry run returns. */
export const DRY_RUN_ROWS = 10;

export interface RunAccepted {
  id: string;
  pipeline_id: string;
  status: RunStatus;
}

export interface DryRunNodeResult {
  node_id: string;
  name: string;
  status: "success" | "failed" | "skipped";
  columns: string[];
  rows: Record<string, unknown>[];
  error?: string;
}

/** `GET /runs/{id}/nodes/{node_id}/preview`. */
export interface NodePreview {
  node_id: string;
  columns: string[];
  rows: Record<string, unknown>[];
}

export interface ColumnProfile {
  name: string;
  type: string;
  null_count: number;
  null_pct: number;
  distinct_count: number;
  min: unknown;
  max: unknown;
  mean: number | null;
}

/** `GET /runs/{id}/nodes/{node_id}/profile`: computed from the node's whole output. */
export interface NodeProfile {
  node_id: string;
  row_count: number;
  columns: ColumnProfile[];
}

/** `POST /pipelines/{id}/webhook` body: optional run params. */
export const WebhookBodySchema = z.object({ params: z.record(z.string(), z.string()).optional() }).strict();

export interface WebhookAccepted {
  run_id: string;
  pipeline_id: string;
  status: string;
}
