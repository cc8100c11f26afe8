import { roleHasPermission, type RouteAccess } from "./permissions.js";
import type { Role } from "./user.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One HTTP operation of the API: where it is, who may call it, what it answers. */
export interface OperationSpec {
  readonly method: HttpMethod;
  /** Path below the API prefix (`/api`), parameters as `{name}`; below the server root when `root` is set. */
  readonly path: string;
  readonly access: RouteAccess;
  readonly tag: "auth" | "system" | "insights" | "scheduler" | "pipelines" | "runs" | "connections" | "variables";
  readonly summary: string;
  /** The success status. */
  readonly status: 200 | 201 | 202 | 204;
  /** The success body, in words (the OpenAPI description). */
  readonly returns: string;
  /** Served at the server root, outside the API prefix (`/health`, `/metrics`). */
  readonly root?: true;
  /** A WebSocket upgrade, not a request/response route. */
  readonly websocket?: true;
  /** Request body limit in bytes when not the server's default (10 MiB). */
  readonly bodyLimitBytes?: number;
}

/**
 * THE operation table (docs/embedding.md). The server registers every route from it with its access attached, the
 * OpenAPI document and the permission reference are generated from it, and the client's methods call operations by
 * id. Request and response schemas live beside it in `operation-io.ts`, keyed by the same ids (that file imports zod;
 * this one imports nothing, so the client can bundle it). Order matters only where paths overlap: a static segment
 * (`/pipelines/summary`) comes before a parameter (`/pipelines/{id}`).
 */
export const OPERATIONS = {
  // authentication and users
  login: {
    method: "POST",
    path: "/auth/login",
    access: "public",
    tag: "auth",
    status: 200,
    summary: "Log in; sets the svc_session cookie",
    returns: "{token, user}",
  },
  logout: {
    method: "POST",
    path: "/auth/logout",
    access: "public",
    tag: "auth",
    status: 204,
    summary: "Clear the session cookie",
    returns: "no body",
  },
  getSetup: {
    method: "GET",
    path: "/auth/setup",
    access: "public",
    tag: "auth",
    status: 200,
    summary: "Whether the first user still has to be created",
    returns: "{needs_setup}",
  },
  getMe: {
    method: "GET",
    path: "/auth/me",
    access: "auth.self",
    tag: "auth",
    status: 200,
    summary: "The current user",
    returns: "{id, username, role}",
  },
  listUsers: {
    method: "GET",
    path: "/auth/users",
    access: "users.manage",
    tag: "auth",
    status: 200,
    summary: "List users (admin)",
    returns: "array of users",
  },
  createUser: {
    method: "POST",
    path: "/auth/users",
    access: "users.manage",
    tag: "auth",
    status: 201,
    summary: "Create a user (admin; only a superadmin creates a superadmin; the first user is always admin)",
    returns: "the user",
  },
  changePassword: {
    method: "POST",
    path: "/auth/change-password",
    access: "auth.self",
    tag: "auth",
    status: 200,
    summary: "Change your own password",
    returns: "{token, user}",
  },
  adminResetPassword: {
    method: "POST",
    path: "/auth/admin-reset-password",
    access: "users.manage",
    tag: "auth",
    status: 200,
    summary: "Reset a user's password and unlock it (admin; a superadmin's by a superadmin only)",
    returns: "the user",
  },

  // platform
  health: {
    method: "GET",
    path: "/health",
    access: "public",
    tag: "system",
    status: 200,
    summary: "Liveness",
    returns: "{status: ok}",
    root: true,
  },
  rootMetrics: {
    method: "GET",
    path: "/metrics",
    access: "system.read",
    tag: "system",
    status: 200,
    summary: "Prometheus metrics",
    returns: "text exposition format",
    root: true,
  },
  systemInfo: {
    method: "GET",
    path: "/system/info",
    access: "system.read",
    tag: "system",
    status: 200,
    summary: "Version, database size, counts",
    returns: "system info",
  },
  purge: {
    method: "POST",
    path: "/system/purge",
    access: "settings.edit",
    tag: "system",
    status: 200,
    summary: "Delete finished runs older than `days` (settings.edit)",
    returns: "{deleted, days}",
  },
  apiHealth: {
    method: "GET",
    path: "/health",
    access: "public",
    tag: "system",
    status: 200,
    summary: "Liveness (also at /health)",
    returns: "{status: ok}",
  },
  metrics: {
    method: "GET",
    path: "/metrics",
    access: "system.read",
    tag: "system",
    status: 200,
    summary: "Prometheus metrics (also at /metrics)",
    returns: "text exposition format",
  },
  openapi: {
    method: "GET",
    path: "/openapi.json",
    access: "system.read",
    tag: "system",
    status: 200,
    summary: "This OpenAPI document",
    returns: "OpenAPI 3.1 document",
  },
  events: {
    method: "GET",
    path: "/ws",
    access: "runs.read",
    tag: "system",
    status: 200,
    summary: "The live event stream (WebSocket; also at /ws)",
    returns: "a WebSocket of run, node and log events",
    websocket: true,
  },

  // insights
  dashboard: {
    method: "GET",
    path: "/dashboard",
    access: "system.read",
    tag: "insights",
    status: 200,
    summary: "Pipelines, recent runs, 7-day trends, top failing",
    returns: "dashboard",
  },
  pipelineSummary: {
    method: "GET",
    path: "/pipelines/summary",
    access: "pipelines.read",
    tag: "insights",
    status: 200,
    summary: "Pipelines with last-run statistics and their next scheduled run",
    returns: "array of summaries with last_run_status, last_run_at, runs_*, schedule_timezone, next_run_at",
  },
  search: {
    method: "GET",
    path: "/search",
    access: "system.read",
    tag: "insights",
    status: 200,
    summary: "Search pipelines, connections and variables",
    returns: "[{type, id, name, description}]",
  },
  lineage: {
    method: "GET",
    path: "/lineage",
    access: "pipelines.read",
    tag: "insights",
    status: 200,
    summary: "Lineage graph across pipelines",
    returns: "{nodes, edges}",
  },
  impact: {
    method: "GET",
    path: "/pipelines/{id}/impact",
    access: "pipelines.read",
    tag: "insights",
    status: 200,
    summary: "Downstream pipelines (depends_on and shared tables)",
    returns: "{pipeline_id, downstream}",
  },

  // scheduler
  schedulerStatus: {
    method: "GET",
    path: "/scheduler/status",
    access: "system.read",
    tag: "scheduler",
    status: 200,
    summary: "Every scheduled pipeline with its next and last run",
    returns: "[{pipeline_id, pipeline_name, schedule, timezone, enabled, next_run, last_run}]",
  },
  dependencies: {
    method: "GET",
    path: "/pipelines/{id}/deps",
    access: "pipelines.read",
    tag: "scheduler",
    status: 200,
    summary: "The pipeline's dependencies and whether each is satisfied",
    returns: "[{pipeline_id, name, last_status, satisfied}]",
  },

  // pipelines
  listPipelines: {
    method: "GET",
    path: "/pipelines",
    access: "pipelines.read",
    tag: "pipelines",
    status: 200,
    summary: "List pipeline summaries",
    returns: "array of summaries, or the pagination envelope",
  },
  createPipeline: {
    method: "POST",
    path: "/pipelines",
    access: "pipelines.write",
    tag: "pipelines",
    status: 201,
    summary: "Create a pipeline",
    returns: "the full pipeline",
  },
  importPipeline: {
    method: "POST",
    path: "/pipelines/import",
    access: "pipelines.write",
    tag: "pipelines",
    status: 201,
    summary: "Import an exported pipeline document",
    returns: "the new pipeline",
    bodyLimitBytes: 5 * 1024 * 1024,
  },
  bulkPipelines: {
    method: "POST",
    path: "/pipelines/bulk",
    access: "pipelines.write",
    tag: "pipelines",
    status: 200,
    summary: "Delete, enable or disable several pipelines",
    returns: "{action, succeeded, failed, errors}",
  },
  getPipeline: {
    method: "GET",
    path: "/pipelines/{id}",
    access: "pipelines.read",
    tag: "pipelines",
    status: 200,
    summary: "Get a pipeline",
    returns: "the full pipeline",
  },
  updatePipeline: {
    method: "PUT",
    path: "/pipelines/{id}",
    access: "pipelines.write",
    tag: "pipelines",
    status: 200,
    summary: "Update some or all fields (records a version)",
    returns: "the full pipeline",
  },
  patchPipeline: {
    method: "PATCH",
    path: "/pipelines/{id}",
    access: "pipelines.write",
    tag: "pipelines",
    status: 200,
    summary: "Same as PUT",
    returns: "the full pipeline",
  },
  deletePipeline: {
    method: "DELETE",
    path: "/pipelines/{id}",
    access: "pipelines.write",
    tag: "pipelines",
    status: 204,
    summary: "Delete a pipeline",
    returns: "no body",
  },
  clonePipeline: {
    method: "POST",
    path: "/pipelines/{id}/clone",
    access: "pipelines.write",
    tag: "pipelines",
    status: 201,
    summary: "Copy a pipeline (name + ' (Copy)', disabled, no webhook token)",
    returns: "the copy",
  },
  exportPipeline: {
    method: "GET",
    path: "/pipelines/{id}/export",
    access: "pipelines.read",
    tag: "pipelines",
    status: 200,
    summary: "Export as a standalone document (attachment)",
    returns: "{sluice_export, exported_at, pipeline}",
  },
  validatePipeline: {
    method: "GET",
    path: "/pipelines/{id}/validate",
    access: "pipelines.read",
    tag: "pipelines",
    status: 200,
    summary: "Validate the stored pipeline",
    returns: "{valid, errors, warnings}",
  },
  validateNodes: {
    method: "POST",
    path: "/pipelines/{id}/validate-nodes",
    access: "pipelines.write",
    tag: "pipelines",
    status: 200,
    summary: "Validate nodes one by one",
    returns: "{valid, nodes}",
  },
  listVersions: {
    method: "GET",
    path: "/pipelines/{id}/versions",
    access: "pipelines.read",
    tag: "pipelines",
    status: 200,
    summary: "Version snapshots, newest first",
    returns: "[{version_id, version, message, created_at}]",
  },
  getVersion: {
    method: "GET",
    path: "/pipelines/{id}/versions/{version_id}",
    access: "pipelines.read",
    tag: "pipelines",
    status: 200,
    summary: "One version with the definition it recorded (never the webhook token)",
    returns: "{version_id, version, message, created_at, snapshot}",
  },
  rollback: {
    method: "POST",
    path: "/pipelines/{id}/rollback",
    access: "pipelines.write",
    tag: "pipelines",
    status: 200,
    summary: "Restore a version (keeps the current webhook token)",
    returns: "the restored pipeline",
  },
  webhook: {
    method: "POST",
    path: "/pipelines/{id}/webhook",
    access: "webhook",
    tag: "runs",
    status: 202,
    summary: "Trigger a run with the pipeline's webhook token (?token= or X-Webhook-Token); optional Idempotency-Key",
    returns: "{run_id, pipeline_id, status}",
  },

  // running pipelines and runs
  triggerRun: {
    method: "POST",
    path: "/pipelines/{id}/run",
    access: "runs.execute",
    tag: "runs",
    status: 202,
    summary: "Trigger a run",
    returns: "{id, pipeline_id, status}",
  },
  dryRun: {
    method: "POST",
    path: "/pipelines/{id}/dry-run",
    access: "runs.execute",
    tag: "runs",
    status: 200,
    summary: "Run in memory with effects suppressed: no run record, no events; first 10 rows per node",
    returns: "object keyed by node id: {node_id, name, status, columns, rows}",
  },
  backfill: {
    method: "POST",
    path: "/pipelines/{id}/backfill",
    access: "runs.execute",
    tag: "runs",
    status: 202,
    summary: "One run per date in a range",
    returns: "array of run ids",
  },
  listRuns: {
    method: "GET",
    path: "/pipelines/{id}/runs",
    access: "runs.read",
    tag: "runs",
    status: 200,
    summary: "Runs of a pipeline, newest first (50 by default); include=nodes adds each run's node_runs",
    returns: "array of runs, or the pagination envelope",
  },
  listDlq: {
    method: "GET",
    path: "/pipelines/{id}/dlq",
    access: "runs.read",
    tag: "runs",
    status: 200,
    summary: "Dead-letter entries of a pipeline, newest first",
    returns: "array of DLQ entries",
  },
  resolveDlq: {
    method: "POST",
    path: "/pipelines/{id}/dlq/{dlqId}/resolve",
    access: "dlq.resolve",
    tag: "runs",
    status: 200,
    summary: "Mark a DLQ entry resolved",
    returns: "{id, status: resolved}",
  },
  calendar: {
    method: "GET",
    path: "/runs/calendar",
    access: "runs.read",
    tag: "runs",
    status: 200,
    summary: "Run counts per UTC day, of every pipeline or of one (pipeline_id)",
    returns: "[{date, success, failed, total}]",
  },
  getRun: {
    method: "GET",
    path: "/runs/{run_id}",
    access: "runs.read",
    tag: "runs",
    status: 200,
    summary: "A run with its node runs",
    returns: "run with node_runs",
  },
  cancelRun: {
    method: "POST",
    path: "/runs/{run_id}/cancel",
    access: "runs.execute",
    tag: "runs",
    status: 200,
    summary: "Cancel a pending or running run (409 when finished)",
    returns: "{id, status: cancelled}",
  },
  resumeRun: {
    method: "POST",
    path: "/runs/{run_id}/resume",
    access: "runs.execute",
    tag: "runs",
    status: 202,
    summary: "Resume a failed run (400 otherwise)",
    returns: "{id, status: pending}",
  },
  runLogs: {
    method: "GET",
    path: "/runs/{run_id}/logs",
    access: "runs.read",
    tag: "runs",
    status: 200,
    summary: "Run log entries, oldest first",
    returns: "array of log entries",
  },
  exportRunLogs: {
    method: "GET",
    path: "/runs/{run_id}/logs/export",
    access: "runs.read",
    tag: "runs",
    status: 200,
    summary: "Logs as a text file download",
    returns: "text/plain attachment run-<id>-logs.txt",
  },
  nodePreview: {
    method: "GET",
    path: "/runs/{run_id}/nodes/{node_id}/preview",
    access: "runs.read",
    tag: "runs",
    status: 200,
    summary: "First 50 rows of a node's output",
    returns: "{node_id, columns, rows}",
  },
  nodeProfile: {
    method: "GET",
    path: "/runs/{run_id}/nodes/{node_id}/profile",
    access: "runs.read",
    tag: "runs",
    status: 200,
    summary: "Profile of a node's whole output",
    returns: "{node_id, row_count, columns}",
  },

  // connections
  connectionTypes: {
    method: "GET",
    path: "/connection-types",
    access: "connections.read",
    tag: "connections",
    status: 200,
    summary: "The seven connection types with their labels and fields",
    returns: "[{type, label, fields}]",
  },
  listConnections: {
    method: "GET",
    path: "/connections",
    access: "connections.read",
    tag: "connections",
    status: 200,
    summary: "List connections (password empty, no extra)",
    returns: "array, or the pagination envelope",
  },
  createConnection: {
    method: "POST",
    path: "/connections",
    access: "connections.write",
    tag: "connections",
    status: 201,
    summary: "Create a connection (secrets encrypted at rest)",
    returns: "the connection, password masked",
  },
  getConnection: {
    method: "GET",
    path: "/connections/{conn_id}",
    access: "connections.write",
    tag: "connections",
    status: 200,
    summary: "Get a connection (password ********, extra decrypted: editors and above)",
    returns: "the connection",
  },
  updateConnection: {
    method: "PUT",
    path: "/connections/{conn_id}",
    access: "connections.write",
    tag: "connections",
    status: 200,
    summary: "Update a connection; password ******** or omitted keeps it",
    returns: "the connection",
  },
  deleteConnection: {
    method: "DELETE",
    path: "/connections/{conn_id}",
    access: "connections.write",
    tag: "connections",
    status: 204,
    summary: "Delete a connection",
    returns: "no body",
  },
  testConnection: {
    method: "POST",
    path: "/connections/{conn_id}/test",
    access: "connections.write",
    tag: "connections",
    status: 200,
    summary: "Test the connection with its driver (5 s bound)",
    returns: "{success, message, driver} or {success: false, error}",
  },
  connectionUsedBy: {
    method: "GET",
    path: "/connections/{conn_id}/used-by",
    access: "connections.read",
    tag: "connections",
    status: 200,
    summary: "Pipelines whose nodes use the connection",
    returns: "[{pipeline_id, name, node_ids}]",
  },

  // variables
  listVariables: {
    method: "GET",
    path: "/variables",
    access: "variables.read",
    tag: "variables",
    status: 200,
    summary: "List variables (secret values ********)",
    returns: "array, or the pagination envelope",
  },
  upsertVariable: {
    method: "POST",
    path: "/variables",
    access: "variables.write",
    tag: "variables",
    status: 201,
    summary: "Create or update a variable (200 when it existed)",
    returns: "the variable",
  },
  getVariable: {
    method: "GET",
    path: "/variables/{key}",
    access: "variables.read",
    tag: "variables",
    status: 200,
    summary: "Get a variable",
    returns: "the variable",
  },
  updateVariable: {
    method: "PUT",
    path: "/variables/{key}",
    access: "variables.write",
    tag: "variables",
    status: 200,
    summary: "Update a variable; value ******** keeps a secret",
    returns: "the variable",
  },
  deleteVariable: {
    method: "DELETE",
    path: "/variables/{key}",
    access: "variables.write",
    tag: "variables",
    status: 204,
    summary: "Delete a variable",
    returns: "no body",
  },
  variableUsedBy: {
    method: "GET",
    path: "/variables/{key}/used-by",
    access: "variables.read",
    tag: "variables",
    status: 200,
    summary: "Pipelines referencing ${var.KEY}",
    returns: "[{pipeline_id, name, node_ids}]",
  },
} as const satisfies Record<string, OperationSpec>;

export type OperationId = keyof typeof OPERATIONS;

/** The `{name}` parameters of a path, as an object type: `"/runs/{run_id}"` → `{ run_id: string }`. */
export type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name | keyof PathParams<Rest>]: string }
  : Record<never, string>;

/** The parameter names of a path, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
}

/** The path with its parameters filled in (each URI-encoded). */
export function fillPath(path: string, params: Readonly<Record<string, string>>): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ""));
}

/**
 * Whether a user with `role` may call operation `id` (`role` null: open mode, before the first user exists, when every
 * operation is reachable). What a UI uses to hide controls; the server decides on every request regardless.
 */
export function operationAllowed(role: Role | null, id: OperationId): boolean {
  const access: RouteAccess = OPERATIONS[id].access;
  if (role === null || access === "public" || access === "webhook") return true;
  return roleHasPermission(role, access);
}
