import { z } from "zod";
import { clampedIntQuery } from "./common.js";

export interface DlqEntry {
  id: string;
  pipeline_id: string;
  run_id: string;
  node_id: string;
  node_name: string;
  error: string;
  payload: unknown;
  created_at: string;
  resolved: boolean;
  resolved_at: string | null;
}

export const DLQ_LIMIT_DEFAULT = 50;
export const DLQ_LIMIT_MAX = 500;

export const DlqQuerySchema = z.object({
  include_resolved: z
    .enum(["true", "false", "1", "0"], { error: "include_resolved must be true or false" })
    .optional()
    .transform((v) => v === "true" || v === "1"),
  limit: clampedIntQuery("limit", DLQ_LIMIT_DEFAULT, DLQ_LIMIT_MAX),
});
export type DlqQuery = z.infer<typeof DlqQuerySchema>;
