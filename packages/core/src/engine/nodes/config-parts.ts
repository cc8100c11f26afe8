import { z } from "zod";
import { ExecutionSettingsSchema } from "../../model/node.js";

/**
 * Building blocks of the node config schemas (each schema sits in its node's file). Unknown keys are allowed
 * (passthrough) so a config can carry editor metadata; required keys are enforced. Execution settings
 * (`max_retries`, `retry_delay`, `timeout`) may sit in any config.
 */
const settings = ExecutionSettingsSchema.shape;

export const nonEmpty = (what: string) =>
  z.string({ error: `${what} is required` }).min(1, `${what} must not be empty`);

/** Rows a node that can multiply its input (`code`, `join`) may return unless its config says otherwise. */
export const DEFAULT_MAX_OUTPUT_ROWS = 2_000_000;

/**
 * `max_output_rows`: rows the node may return; more fails the node instead of filling the server's memory (one
 * process runs every pipeline: a node that exhausts it ends them all).
 */
export const maxOutputRows = z.number().int().min(1).max(50_000_000).optional();

/**
 * `max_output_mb`: millions of characters of data (about its size as JSON) a node whose rows come from another
 * process (`sql`, `code`) may return, default {@link DEFAULT_MAX_OUTPUT_MB}: one query's rows of 100 KB each ended the
 * server out of memory at 50,000 rows, far below any row bound.
 */
export const maxOutputMb = z.number().int().min(1).max(2_000).optional();
export const DEFAULT_MAX_OUTPUT_MB = 512;

/** Both bounds, for a node whose rows come from another process (`sql`, `code`). */
export const outputBounds = { max_output_rows: maxOutputRows, max_output_mb: maxOutputMb };

/** What a node's config bounds its output to, with the defaults: rows, and characters of JSON. */
export function outputLimits(config: { max_output_rows?: number | undefined; max_output_mb?: number | undefined }): {
  rows: number;
  chars: number;
} {
  return {
    rows: config.max_output_rows ?? DEFAULT_MAX_OUTPUT_ROWS,
    chars: (config.max_output_mb ?? DEFAULT_MAX_OUTPUT_MB) * 1e6,
  };
}

export const loose = <T extends z.ZodRawShape>(shape: T) => z.looseObject({ ...settings, ...shape });

/** Where an HTTP node sends its request (source_api, sink_api, notify); every string is rendered at run time. */
export const httpTarget = {
  url: z.string().min(1, "url must not be empty").optional(),
  conn_id: z.string().min(1, "conn_id must not be empty").optional(),
  path: z.string().optional(),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "get", "post", "put", "patch", "delete"]).optional(),
  headers: z.record(z.string(), z.string(), { error: "headers must be an object of strings" }).optional(),
  query: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]), { error: "query must be an object" })
    .optional(),
};
