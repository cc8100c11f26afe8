import { PERMISSIONS, type Permission } from "../model/permissions.js";
import type { Role } from "../model/user.js";

/**
 * What each role holds (docs/security.md). Permission names are in `model/permissions.ts`; what each operation needs
 * is its `access` in the operation table (`model/operations.ts`).
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

/** Seeing a pipeline's credentials (its `webhook_token`) goes with being allowed to edit the pipeline. */
export const PIPELINE_SECRETS_PERMISSION: Permission = "pipelines.write";
