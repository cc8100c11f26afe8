import {
  AdminResetPasswordRequestSchema,
  BackfillRequestSchema,
  BulkRequestSchema,
  ChangePasswordRequestSchema,
  CreateUserRequestSchema,
  LoginRequestSchema,
  PipelineCreateSchema,
  PipelineImportSchema,
  PipelineUpdateSchema,
  PurgeRequestSchema,
  RollbackRequestSchema,
  TriggerRunRequestSchema,
  ValidateNodesRequestSchema,
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
  "POST /auth/users": { tag: "auth", summary: "Create a user (admin; the first user is always admin)", body: CreateUserRequestSchema, success: [201, "the user"] },
  "POST /auth/change-password": { tag: "auth", summary: "Change your own password", body: ChangePasswordRequestSchema, success: [200, "{token, user}"] },
  "POST /auth/admin-reset-password": { tag: "auth", summary: "Reset a user's password and unlock it (admin)", body: AdminResetPasswordRequestSchema, success: [200, "the user"] },

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
};
