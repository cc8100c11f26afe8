import type { Role } from "../model/user.js";

/**
 * The one permission table (DESIGN.md §5): permission names, what each role holds, and what each route needs.
 * Adapters look routes up here; a route without an entry is refused (fail closed).
 */
export const PERMISSIONS = [
  "pipelines.read",
  "pipelines.write",
  "runs.read",
  "runs.execute",
  "dlq.resolve",
  "connections.read",
  "connections.write",
  "variables.read",
  "variables.write",
  "system.read",
  "auth.self",
  "users.manage",
  "settings.edit",
  "organizations.manage",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const VIEWER: readonly Permission[] = ["pipelines.read", "runs.read", "connections.read", "variables.read", "system.read", "auth.self"];
const EDITOR: readonly Permission[] = [
  ...VIEWER,
  "pipelines.write",
  "runs.execute",
  "dlq.resolve",
  "connections.write",
  "variables.write",
];
const ADMIN: readonly Permission[] = [...EDITOR, "users.manage", "settings.edit"];

/** viewer reads; editor creates, edits and runs; admin adds users and settings.edit; superadmin everything. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, ReadonlySet<Permission>>> = Object.freeze({
  viewer: new Set(VIEWER),
  editor: new Set(EDITOR),
  admin: new Set(ADMIN),
  superadmin: new Set(PERMISSIONS),
});

export function roleHasPermission(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}

/** Seeing a pipeline's credentials (its `webhook_token`) goes with being allowed to edit the pipeline. */
export const PIPELINE_SECRETS_PERMISSION: Permission = "pipelines.write";

/** `public`: reachable without credentials even once users exist (the webhook checks its own token). */
export type RouteAccess = Permission | "public";

/**
 * Route → permission, keyed `METHOD /path` without the `/api` prefix, in router (`:param`) syntax. Parameter
 * names do not matter for lookups (`/pipelines/:id/run` finds `/pipelines/:pipeline_id/run`).
 */
export const ROUTE_PERMISSIONS: Readonly<Record<string, RouteAccess>> = Object.freeze({
  // authentication and users
  "POST /auth/login": "public",
  "POST /auth/logout": "public",
  "GET /auth/setup": "public",
  "GET /auth/me": "auth.self",
  "POST /auth/change-password": "auth.self",
  "GET /auth/users": "users.manage",
  "POST /auth/users": "users.manage",
  "POST /auth/admin-reset-password": "users.manage",

  // pipelines
  "GET /pipelines": "pipelines.read",
  "POST /pipelines": "pipelines.write",
  "GET /pipelines/summary": "pipelines.read",
  "POST /pipelines/import": "pipelines.write",
  "POST /pipelines/bulk": "pipelines.write",
  "GET /pipelines/:id": "pipelines.read",
  "PUT /pipelines/:id": "pipelines.write",
  "PATCH /pipelines/:id": "pipelines.write",
  "DELETE /pipelines/:id": "pipelines.write",
  "POST /pipelines/:id/clone": "pipelines.write",
  "GET /pipelines/:id/export": "pipelines.read",
  "GET /pipelines/:id/validate": "pipelines.read",
  "POST /pipelines/:id/validate-nodes": "pipelines.write",
  "GET /pipelines/:id/versions": "pipelines.read",
  "POST /pipelines/:id/rollback": "pipelines.write",
  "GET /pipelines/:id/impact": "pipelines.read",
  "GET /pipelines/:id/deps": "pipelines.read",
  "GET /pipelines/:id/dlq": "runs.read",
  "POST /pipelines/:id/dlq/:dlqId/resolve": "dlq.resolve",
  "POST /pipelines/:id/webhook": "public",

  // running pipelines and runs
  "POST /pipelines/:pipeline_id/run": "runs.execute",
  "POST /pipelines/:pipeline_id/dry-run": "runs.execute",
  "POST /pipelines/:pipeline_id/backfill": "runs.execute",
  "GET /pipelines/:pipeline_id/runs": "runs.read",
  "GET /runs/calendar": "runs.read",
  "GET /runs/:run_id": "runs.read",
  "POST /runs/:run_id/cancel": "runs.execute",
  "POST /runs/:run_id/resume": "runs.execute",
  "GET /runs/:run_id/logs": "runs.read",
  "GET /runs/:run_id/logs/export": "runs.read",
  "GET /runs/:run_id/nodes/:node_id/preview": "runs.read",
  "GET /runs/:run_id/nodes/:node_id/profile": "runs.read",

  // platform utilities
  "GET /lineage": "pipelines.read",
  "GET /scheduler/status": "system.read",
  "GET /dashboard": "system.read",
  "GET /search": "system.read",
  "GET /system/info": "system.read",
  "POST /system/purge": "settings.edit",
  "GET /metrics": "system.read",
  "GET /health": "public",
  "GET /openapi.json": "system.read",
  /** The event stream (`/ws` and `/api/ws`), authenticated like the API when the socket upgrades. */
  "GET /ws": "runs.read",

  // variables
  "GET /variables": "variables.read",
  "POST /variables": "variables.write",
  "GET /variables/:key": "variables.read",
  "PUT /variables/:key": "variables.write",
  "DELETE /variables/:key": "variables.write",
  "GET /variables/:key/used-by": "variables.read",

  // connections
  "GET /connection-types": "connections.read",
  "GET /connections": "connections.read",
  "POST /connections": "connections.write",
  /** Answers with `extra` decrypted (tokens, secret keys): a secret, so editors and above only. */
  "GET /connections/:conn_id": "connections.write",
  "PUT /connections/:conn_id": "connections.write",
  "DELETE /connections/:conn_id": "connections.write",
  "POST /connections/:conn_id/test": "connections.write",
  "GET /connections/:conn_id/used-by": "connections.read",
});

/** Public routes that check a credential of their own (the webhook's pipeline token): 401/403 come from them. */
export const SELF_AUTHENTICATED_ROUTES: readonly string[] = Object.freeze(["POST /pipelines/:id/webhook"]);

/** `METHOD /path` with every `:param` name replaced, HEAD folded into GET and trailing slashes dropped. */
export function routeKey(method: string, routePath: string): string {
  const verb = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  const normalizedPath = routePath.replace(/:[A-Za-z0-9_]+/g, ":param").replace(/(.)\/+$/, "$1");
  return `${verb} ${normalizedPath}`;
}

const BY_KEY: ReadonlyMap<string, RouteAccess> = new Map(
  Object.entries(ROUTE_PERMISSIONS).map(([key, access]) => {
    const [method = "", routePath = ""] = key.split(" ");
    return [routeKey(method, routePath), access];
  }),
);

/** Whether a route authenticates callers itself (see SELF_AUTHENTICATED_ROUTES). */
export function isSelfAuthenticated(method: string, routePath: string): boolean {
  const key = routeKey(method, routePath);
  return SELF_AUTHENTICATED_ROUTES.some((entry) => {
    const [m = "", p = ""] = entry.split(" ");
    return routeKey(m, p) === key;
  });
}

/** What a route needs, given its method and router pattern without the API prefix; undefined when not in the table. */
export function routeAccess(method: string, routePath: string): RouteAccess | undefined {
  return BY_KEY.get(routeKey(method, routePath));
}
