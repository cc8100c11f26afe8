import type { Role } from "@sluice/client";

/** What each role may do (DESIGN §5), for the role picker. */
export const ROLE_HELP: Record<Role, string> = {
  viewer: "reads pipelines, runs, connections and variables (never a secret)",
  editor: "creates, edits and runs pipelines; manages connections and variables",
  admin: "everything an editor does, plus users and settings",
  superadmin: "everything, including other superadmins",
};

/** The roles a user of role `mine` may hand out: only a superadmin creates a superadmin. */
export function assignableRoles(mine: Role | undefined): Role[] {
  const roles: Role[] = ["viewer", "editor", "admin"];
  return mine === "superadmin" ? [...roles, "superadmin"] : roles;
}
