import { z } from "zod";
import type { NodeType } from "../../model/node.js";

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

export const NODE_CONFIG_SCHEMAS: Readonly<Record<NodeType, z.ZodType>> = {
  source_db: loose({ conn_id: nonEmpty("conn_id"), query: nonEmpty("query") }),
  source_api: loose({ url: z.string().optional(), conn_id: z.string().optional(), path: z.string().optional() }).refine(
    (c) => Boolean(c.url) || Boolean(c.conn_id),
    "url or conn_id is required",
  ),
  source_file: loose({ path: nonEmpty("path"), format: z.enum(["csv", "json", "jsonl"]).optional() }),
  transform: loose({ rules: z.array(z.looseObject({ type: nonEmpty("rule type") }), { error: "rules must be an array" }) }),
  join: loose({
    how: z.enum(["inner", "left", "right", "full"]).optional(),
    on: z.union([z.string(), z.array(z.string())]).optional(),
  }),
  union: loose({}),
  sql: loose({ sql: nonEmpty("sql").optional(), query: z.string().optional() }).refine(
    (c) => Boolean(c.sql) || Boolean(c.query),
    "sql is required",
  ),
  code: loose({ code: nonEmpty("code") }),
  quality: loose({
    checks: z.array(z.looseObject({ type: nonEmpty("check type") }), { error: "checks must be an array" }),
    on_failure: z.enum(["block", "warn", "dlq"]).optional(),
  }),
  condition: loose({ expression: nonEmpty("expression") }),
  sink_db: loose({
    conn_id: nonEmpty("conn_id"),
    table: nonEmpty("table"),
    mode: z.enum(["insert", "upsert"]).optional(),
    conflict_key: z.union([z.string(), z.array(z.string())]).optional(),
  }).refine((c) => c.mode !== "upsert" || Boolean(c.conflict_key), "conflict_key is required with mode upsert"),
  sink_file: loose({ path: nonEmpty("path"), format: z.enum(["csv", "json", "jsonl"]).optional() }),
  sink_api: loose({ url: z.string().optional(), conn_id: z.string().optional() }).refine(
    (c) => Boolean(c.url) || Boolean(c.conn_id),
    "url or conn_id is required",
  ),
  migrate: loose({ conn_id: nonEmpty("conn_id"), sql: nonEmpty("sql") }),
  notify: loose({ url: z.string().optional(), conn_id: z.string().optional(), message: z.string().optional() }),
};

/** Node types that end a branch; a node of another kind with no downstream edge gets a warning. */
export const TERMINAL_NODE_TYPES: ReadonlySet<string> = new Set(["sink_db", "sink_file", "sink_api", "migrate", "notify"]);
