import { z } from "zod";

export interface SystemInfo {
  version: string;
  db_size: number;
  db_size_mb: string;
  pipelines: number;
  active_runs: number;
  max_concurrent_runs: number;
  store: string;
  uptime_s: number;
}

/** `POST /system/purge` body: runs finished more than `days` days ago go (default 30). */
export const PurgeRequestSchema = z
  .object({
    days: z
      .number({ error: (issue) => (issue.input === undefined ? undefined : "days must be a number") })
      .int("days must be an integer")
      .min(0, "days must be 0 or more")
      .max(36_500, "days must be at most 36500")
      .default(30),
  })
  .strict();

export interface PurgeResult {
  deleted: number;
  days: number;
}
