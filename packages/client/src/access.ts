import type { OperationId, Role } from "@sluice/core/model";
import { operationAllowed as allowedByTable } from "@sluice/core/operations";

/**
 * Whether a user with `role` may call operation `id` (null: open mode, before the first user, when everything is
 * reachable). Decided by the same table the server enforces; use it to hide controls, never instead of the server.
 */
export function operationAllowed(role: Role | null, id: OperationId): boolean {
  return allowedByTable(role, id);
}
