import {
  AdminResetPasswordRequestSchema,
  BackfillRequestSchema,
  BulkRequestSchema,
  ChangePasswordRequestSchema,
  ConnectionCreateSchema,
  ConnectionUpdateSchema,
  VariableUpsertSchema,
  VariableUpdateSchema,
  CreateUserRequestSchema,
  LoginRequestSchema,
  PipelineCreateSchema,
  PipelineImportSchema,
  PipelineUpdateSchema,
  PurgeRequestSchema,
  RollbackRequestSchema,
  TriggerRunRequestSchema,
  ValidateNodesRequestSchema,
  WebhookBodySchema,
} from "@sluice/core";
import type { z } from "zod";

export interface RouteDoc {
  summary: string;
  tag: string;
  /** Request body schema (zod; the same schema the service validates with). */
  body?: z.ZodType;
  /** Query parameters: name → description. */
  query?: Record<string, string>;
  /** Success status and what it returns. */
  success: [status: number, description: string];
}

const PAGE = { page: "page number (1-based); returns the pagination envelope", per_page: "items per page (default 50, max 500)" };

/** One entry per route, keyed like the permission table (`METHOD /path`, router syntax, without `/api`). */
export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = {
  "POST /auth/login": { tag: "auth", summary: "Log in; sets the svc_session cookie", body: LoginRequestSchema, success: [200, "{token, user}"] },
  "POST /auth/logout": { tag: "auth", summary: "Clear the session cookie", success: [204, "no body"] },
  "GET /auth/setup": { tag: "auth", summary: "Whether the first user still has to be created", success: [200, "{needs_setup}"] },
  "GET /auth/me": { tag: "auth", summary: "The current user", success: [200, "{id, username, role}"] },
  "GET /auth/users": { tag: "auth", summary: "List users (admin)", success: [200, "array of users"] },
  "POST /auth/users": { tag: "auth", summary: "Create a user (admin; only a superadmin creates a superadmin; the first user is always admin)", body: CreateUserRequestSchema, success: [201, "the user"] },
  "POST /auth/change-password": { tag: "auth", summary: "Change your own password", body: ChangePasswordRequestSchema, success: [200, "{token, user}"] },
  "POST /auth/admin-reset-password": { tag: "auth", summary: "Reset a user's password and unlock it (admin; a superadmin's by a superadmin only)", body: AdminResetPasswordRequestSchema, success: [200, "the user"] },

  "GET /system/info": { tag: "system", summary: "Version, database size, counts", success: [200, "system info"] },
  "POST /system/purge": { tag: "system", summary: "Delete finished runs older than `days` (settings.edit)", body: PurgeRequestSchema, success: [200, "{deleted, days}"] },
  "GET /health": { tag: "system", summary: "Liveness", success: [200, "{status: ok}"] },
  "GET /metrics": { tag: "system", summary: "Prometheus metrics", success: [200, "text exposition format"] },
  "GET /openapi.json": { tag: "system", summary: "This OpenAPI document", success: [200, "OpenAPI 3.1 document"] },
  "GET /dashboard": { tag: "insights", summary: "Pipelines, recent runs, 7-day trends, top failing", success: [200, "dashboard"] },
  "GET /pipelines/summary": { tag: "insights", summary: "Pipelines with last-run statistics", success: [200, "array"] },
  "GET /search": { tag: "insights", summary: "Search pipelines, connections and variables", query: { q: "substring (required)", limit: "default 30, max 100" }, success: [200, "[{type, id, name, description}]"] },
  "GET /lineage": { tag: "insights", summary: "Lineage graph across pipelines", success: [200, "{nodes, edges}"] },
  "GET /pipelines/:id/impact": { tag: "insights", summary: "Downstream pipelines (depends_on and shared tables)", success: [200, "{pipeline_id, downstream}"] },

  "GET /scheduler/status": { tag: "scheduler", summary: "Every scheduled pipeline with its next and last run", success: [200, "[{pipeline_id, pipeline_name, schedule, timezone, enabled, next_run, last_run}]"] },
  "GET /pipelines/:id/deps": { tag: "scheduler", summary: "The pipeline's dependencies and whether each is satisfied", success: [200, "[{pipeline_id, name, last_status, satisfied}]"] },
  "POST /pipelines/:id/webhook": { tag: "runs", summary: "Trigger a run with the pipeline's webhook token (?token= or X-Webhook-Token); optional Idempotency-Key", body: WebhookBodySchema, query: { token: "the pipeline's webhook_token (or header X-Webhook-Token)" }, success: [202, "{run_id, pipeline_id, status}"] },

  "GET /connection-types": { tag: "connections", summary: "The seven connection types with their labels and fields", success: [200, "[{type, label, fields}]"] },
  "GET /connections": { tag: "connections", summary: "List connections (password empty, no extra)", query: PAGE, success: [200, "array, or the envelope"] },
  "POST /connections": { tag: "connections", summary: "Create a connection (secrets encrypted at rest)", body: ConnectionCreateSchema, success: [201, "the connection, password masked"] },
  "GET /connections/:conn_id": { tag: "connections", summary: "Get a connection (password ********, extra decrypted; editors and above)", success: [200, "the connection"] },
  "PUT /connections/:conn_id": { tag: "connections", summary: "Update a connection; password ******** or omitted keeps it", body: ConnectionUpdateSchema, success: [200, "the connection"] },
  "DELETE /connections/:conn_id": { tag: "connections", summary: "Delete a connection", success: [204, "no body"] },
  "POST /connections/:conn_id/test": { tag: "connections", summary: "Test the connection with its driver (5 s bound)", success: [200, "{success, message, driver} or {success: false, error}"] },
  "GET /connections/:conn_id/used-by": { tag: "connections", summary: "Pipelines whose nodes use the connection", success: [200, "[{pipeline_id, name, node_ids}]"] },
  "GET /variables": { tag: "variables", summary: "List variables (secret values ********)", query: PAGE, success: [200, "array, or the envelope"] },
  "POST /variables": { tag: "variables", summary: "Create or update a variable", body: VariableUpsertSchema, success: [201, "the variable (200 when updated)"] },
  "GET /variables/:key": { tag: "variables", summary: "Get a variable", success: [200, "the variable"] },
  "PUT /variables/:key": { tag: "variables", summary: "Update a variable; value ******** keeps a secret", body: VariableUpdateSchema, success: [200, "the variable"] },
  "DELETE /variables/:key": { tag: "variables", summary: "Delete a variable", success: [204, "no body"] },
  "GET /variables/:key/used-by": { tag: "variables", summary: "Pipelines referencing ${var.KEY}", success: [200, "[{pipeline_id, name, node_ids}]"] },

  "GET /pipelines": { tag: "pipelines", summary: "List pipeline summaries", query: PAGE, success: [200, "array of summaries, or the envelope"] },
  "POST /pipelines": { tag: "pipelines", summary: "Create a pipeline", body: PipelineCreateSchema, success: [201, "the full pipeline"] },
  "POST /pipelines/import": { tag: "pipelines", summary: "Import an exported pipeline document", body: PipelineImportSchema, success: [201, "the new pipeline"] },
  "POST /pipelines/bulk": { tag: "pipelines", summary: "Delete, enable or disable several pipelines", body: BulkRequestSchema, success: [200, "{action, succeeded, failed, errors}"] },
  "GET /pipelines/:id": { tag: "pipelines", summary: "Get a pipeline", success: [200, "the full pipeline"] },
  "PUT /pipelines/:id": { tag: "pipelines", summary: "Update some or all fields (records a version)", body: PipelineUpdateSchema, success: [200, "the full pipeline"] },
  "PATCH /pipelines/:id": { tag: "pipelines", summary: "Same as PUT", body: PipelineUpdateSchema, success: [200, "the full pipeline"] },
  "DELETE /pipelines/:id": { tag: "pipelines", summary: "Delete a pipeline", success: [204, "no body"] },
  "POST /pipelines/:id/clone": { tag: "pipelines", summary: "Copy a pipeline (name + ' (Copy)', disabled)", success: [201, "the copy"] },
  "GET /pipelines/:id/export": { tag: "pipelines", summary: "Export as a standalone document", success: [200, "{sluice_export, exported_at, pipeline}"] },
  "GET /pipelines/:id/validate": { tag: "pipelines", summary: "Validate the stored pipeline", success: [200, "{valid, errors, warnings}"] },
  "POST /pipelines/:id/validate-nodes": { tag: "pipelines", summary: "Validate nodes one by one", body: ValidateNodesRequestSchema, success: [200, "{valid, nodes}"] },
  "GET /pipelines/:id/versions": { tag: "pipelines", summary: "Version snapshots, newest first", success: [200, "[{version_id, version, message, created_at}]"] },
  "POST /pipelines/:id/rollback": { tag: "pipelines", summary: "Restore a version", body: RollbackRequestSchema, success: [200, "the restored pipeline"] },

  "POST /pipelines/:id/run": { tag: "runs", summary: "Trigger a run", body: TriggerRunRequestSchema, success: [202, "{id, pipeline_id, status}"] },
  "POST /pipelines/:id/backfill": { tag: "runs", summary: "One run per date in a range", body: BackfillRequestSchema, success: [202, "array of run ids"] },
  "POST /pipelines/:id/dry-run": { tag: "runs", summary: "Run in memory: no run record, no events; first 10 rows per node", body: TriggerRunRequestSchema, success: [200, "object keyed by node id: {node_id, name, status, columns, rows}"] },
  "GET /pipelines/:id/runs": { tag: "runs", summary: "Runs of a pipeline, newest first (50 by default)", query: PAGE, success: [200, "array of runs, or the envelope"] },
  "GET /runs/calendar": { tag: "runs", summary: "Run counts per day", query: { days: "default 90, max 365" }, success: [200, "[{date, success, failed, total}]"] },
  "GET /runs/:run_id": { tag: "runs", summary: "A run with its node runs", success: [200, "run with node_runs"] },
  "POST /runs/:run_id/cancel": { tag: "runs", summary: "Cancel a pending or running run (409 when finished)", success: [200, "{id, status: cancelled}"] },
  "POST /runs/:run_id/resume": { tag: "runs", summary: "Resume a failed run (400 otherwise)", success: [202, "{id, status: pending}"] },
  "GET /runs/:run_id/logs": { tag: "runs", summary: "Run log entries, oldest first", query: { node_id: "only this node", level: "debug|info|warning|error" }, success: [200, "array of log entries"] },
  "GET /runs/:run_id/logs/export": { tag: "runs", summary: "Logs as a text file download", success: [200, "text/plain attachment run-<id>-logs.txt"] },
  "GET /runs/:run_id/nodes/:node_id/preview": { tag: "runs", summary: "First 50 rows of a node's output", success: [200, "{node_id, columns, rows}"] },
  "GET /runs/:run_id/nodes/:node_id/profile": { tag: "runs", summary: "Profile of a node's whole output", success: [200, "{node_id, row_count, columns}"] },
  "GET /pipelines/:id/dlq": { tag: "runs", summary: "Dead-letter entries of a pipeline, newest first", query: { include_resolved: "true|false (default false)", limit: "default 50, max 500" }, success: [200, "array of DLQ entries"] },
  "POST /pipelines/:id/dlq/:dlqId/resolve": { tag: "runs", summary: "Mark a DLQ entry resolved", success: [200, "{id, status: resolved}"] },
};
