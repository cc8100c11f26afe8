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
