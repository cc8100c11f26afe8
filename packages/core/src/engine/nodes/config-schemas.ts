import { z } from "zod";
import type { NodeType } from "../../model/node.js";
import { TransformRuleSchema } from "./transform-rules.js";

/**
 * Config schema per node type, used by validation (`validate`, `validate-nodes`) before anything runs.
 * Unknown keys are allowed (passthrough) so a config can carry editor metadata; required keys are enforced.
 * Execution settings (`max_retries`, `retry_delay`, `timeout`) may sit in any config.
 */
const settings = {
  max_retries: z.number().int().min(0).max(100).optional(),
  retry_delay: z.number().min(0).max(3600).optional(),
  timeout: z.number().int().min(1).optional(),
};
const nonEmpty = (what: string) => z.string({ error: `${what} is required` }).min(1, `${what} must not be empty`);
const loose = <T extends z.ZodRawShape>(shape: T) => z.looseObject({ ...settings, ...shape });
/** Where an HTTP node sends its request (source_api, sink_api, notify); every string is rendered at run time. */
const httpTarget = {
  url: z.string().min(1, "url must not be empty").optional(),
  conn_id: z.string().min(1, "conn_id must not be empty").optional(),
  path: z.string().optional(),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "get", "post", "put", "patch", "delete"]).optional(),
  headers: z.record(z.string(), z.string(), { error: "headers must be an object of strings" }).optional(),
  query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]), { error: "query must be an object" }).optional(),
};

export const sourceApiConfig = loose({
  ...httpTarget,
  body: z.unknown().optional(),
  rows_path: z.string().optional(),
  next_url_path: z.string().min(1).optional(),
  page_param: z.string().min(1).optional(),
  offset_param: z.string().min(1).optional(),
  page_start: z.number().int().optional(),
  page_size: z.number().int().min(1).optional(),
  page_size_param: z.string().min(1).optional(),
  max_pages: z.number().int().min(1).max(10_000).optional(),
})
  .refine((c) => Boolean(c.url) || Boolean(c.conn_id), "url or conn_id is required")
  .refine((c) => !(c.page_param && c.offset_param), "use page_param or offset_param, not both")
  .refine((c) => !c.offset_param || c.page_size !== undefined, "page_size is required with offset_param");

export const sourceFileConfig = loose({
  path: nonEmpty("path"),
  format: z.enum(["csv", "json", "jsonl"]).optional(),
  delimiter: z.string().min(1).max(4).optional(),
  header: z.boolean().optional(),
  quote: z.union([z.string().length(1), z.literal(false)]).optional(),
  escape: z.string().length(1).optional(),
  cast: z.boolean().optional(),
  encoding: z.enum(["utf8", "utf-8", "latin1", "ascii", "utf16le"]).optional(),
});

export const unionConfig = loose({});

export const sqlConfig = loose({ sql: nonEmpty("sql").optional(), query: z.string().optional() }).refine(
  (c) => Boolean(c.sql) || Boolean(c.query),
  "sql is required",
);

export const codeConfig = loose({
  code: nonEmpty("code"),
  memory_mb: z.number().int().min(8).max(4096).optional(),
  max_output_rows: z.number().int().min(1).max(50_000_000).optional(),
});

export const conditionConfig = loose({ expression: nonEmpty("expression"), sample_rows: z.number().int().min(0).max(100_000).optional() });

export const sinkApiConfig = loose({ ...httpTarget, batch_size: z.number().int().min(1).max(100_000).optional() }).refine(
  (c) => Boolean(c.url) || Boolean(c.conn_id),
  "url or conn_id is required",
);

export const notifyConfig = loose({
  ...httpTarget,
  message: z.string().optional(),
  format: z.enum(["webhook", "slack"]).optional(),
  type: z.enum(["webhook", "slack"]).optional(),
}).refine((c) => Boolean(c.url) || Boolean(c.conn_id), "url or conn_id is required");

export const transformConfig = loose({ rules: z.array(TransformRuleSchema, { error: "rules must be an array" }) });

export const joinConfig = loose({
  how: z.enum(["inner", "left", "right", "full"]).optional(),
  on: z.union([nonEmpty("on"), z.array(nonEmpty("on")).min(1)]).optional(),
  left_on: z.union([nonEmpty("left_on"), z.array(nonEmpty("left_on")).min(1)]).optional(),
  right_on: z.union([nonEmpty("right_on"), z.array(nonEmpty("right_on")).min(1)]).optional(),
}).refine((c) => Boolean(c.on) || (Boolean(c.left_on) && Boolean(c.right_on)), "join needs on (or left_on and right_on)");

export const QUALITY_CHECK_TYPES = ["not_null", "unique", "min", "max", "range", "regex", "accepted_values", "row_count", "type_check", "freshness"] as const;
export const qualityConfig = loose({
  checks: z.array(
    z.looseObject({
      type: z.enum(QUALITY_CHECK_TYPES, { error: `check type must be one of ${QUALITY_CHECK_TYPES.join(", ")}` }),
      column: z.string().min(1).optional(),
      columns: z.array(z.string().min(1)).optional(),
      min: z.union([z.number(), z.string()]).optional(),
      max: z.union([z.number(), z.string()]).optional(),
      pattern: z.string().optional(),
      values: z.array(z.unknown()).optional(),
      expected_type: z.enum(["number", "integer", "string", "boolean", "date"]).optional(),
      max_age_hours: z.number().positive().optional(),
    }),
    { error: "checks must be an array" },
  ),
  on_failure: z.enum(["block", "warn", "dlq"]).optional(),
});

export const sinkFileConfig = loose({
  path: nonEmpty("path"),
  format: z.enum(["csv", "json", "jsonl"]).optional(),
  delimiter: z.string().length(1, "delimiter must be one character").optional(),
  header: z.boolean().optional(),
});

export const sourceDbConfig = loose({
  conn_id: nonEmpty("conn_id"),
  query: nonEmpty("query"),
  batch_size: z.number().int().min(1).max(1_000_000).optional(),
});

export const sinkDbConfig = loose({
  conn_id: nonEmpty("conn_id"),
  table: nonEmpty("table"),
  mode: z.enum(["insert", "upsert"], { error: "mode must be insert or upsert" }).optional(),
  conflict_key: z.union([nonEmpty("conflict_key"), z.array(nonEmpty("conflict_key")).min(1)]).optional(),
  batch_size: z.number().int().min(1).max(100_000).optional(),
}).refine((c) => c.mode !== "upsert" || Boolean(c.conflict_key), "conflict_key is required with mode upsert");

export const migrateConfig = loose({
  conn_id: nonEmpty("conn_id"),
  sql: z.union([nonEmpty("sql"), z.array(nonEmpty("sql")).min(1, "sql must not be empty")]),
});

export const NODE_CONFIG_SCHEMAS: Readonly<Record<NodeType, z.ZodType>> = {
  source_db: sourceDbConfig,
  source_api: sourceApiConfig,
  source_file: sourceFileConfig,
  transform: transformConfig,
  join: joinConfig,
  union: unionConfig,
  sql: sqlConfig,
  code: codeConfig,
  quality: qualityConfig,
  condition: conditionConfig,
  sink_db: sinkDbConfig,
  sink_file: sinkFileConfig,
  sink_api: sinkApiConfig,
  migrate: migrateConfig,
  notify: notifyConfig,
};

/** Node types that end a branch; a node of another kind with no downstream edge gets a warning. */
export const TERMINAL_NODE_TYPES: ReadonlySet<string> = new Set(["sink_db", "sink_file", "sink_api", "migrate", "notify"]);
