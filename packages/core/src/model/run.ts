import { z } from "zod";

export const RUN_STATUSES = ["pending", "running", "success", "failed", "cancelled"] as const;
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

export interface LogEntry {
  run_id: string;
  node_id: string | null;
  level: LogLevel;
  message: string;
  timestamp: string;
}

export const TriggerRunRequestSchema = z
  .object({ params: z.record(z.string(), z.string()).default({}) })
  .strict();

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
