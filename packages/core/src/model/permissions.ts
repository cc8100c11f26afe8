import type { Role } from "./user.js";

/** Permission names (docs/security.md). Which role holds which is `auth/permissions.ts`; which operation needs which is
 * `operations.ts`. Dependency-free so the client shares them. */
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
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * What an operation needs: a permission, `public` (no credentials, even once users exist), or `webhook` (public to
 * the API's credentials; the operation checks the pipeline's own webhook token and answers 401/403 itself).
 */
export type RouteAccess = Permission | "public" | "webhook";

/**
 * What each role holds (docs/security.md); what each operation needs is its `access` in the operation
 * table (`operations.ts`).
 */
const VIEWER: readonly Permission[] = [
  "pipelines.read",
  "runs.read",
  "connections.read",
  "variables.read",
  "system.read",
  "auth.self",
];
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
