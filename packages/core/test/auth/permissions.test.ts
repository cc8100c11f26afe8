import { describe, expect, it } from "vitest";
import { ROLE_PERMISSIONS } from "../../src/auth/permissions.js";
import { OPERATIONS } from "../../src/model/operations.js";
import { PERMISSIONS } from "../../src/model/permissions.js";
import { ROLES } from "../../src/model/user.js";

describe("permission table", () => {
  it("roles are nested: viewer ⊂ editor ⊂ admin ⊂ superadmin = everything", () => {
    const order = ["viewer", "editor", "admin", "superadmin"] as const;
    for (let i = 1; i < order.length; i++) {
      const lower = ROLE_PERMISSIONS[order[i - 1] as (typeof order)[number]];
      const higher = ROLE_PERMISSIONS[order[i] as (typeof order)[number]];
      for (const p of lower) expect(higher.has(p)).toBe(true);
      // a superadmin holds what an admin holds; what sets it apart is managing superadmins (auth-service)
      if (order[i] !== "superadmin") expect(higher.size).toBeGreaterThan(lower.size);
    }
    expect([...ROLE_PERMISSIONS.superadmin].sort()).toEqual([...PERMISSIONS].sort());
    expect(Object.keys(ROLE_PERMISSIONS).sort()).toEqual([...ROLES].sort());
  });

  it("settings.edit belongs to admin and above only; viewers only read", () => {
    expect(ROLE_PERMISSIONS.admin.has("settings.edit")).toBe(true);
    expect(ROLE_PERMISSIONS.editor.has("settings.edit")).toBe(false);
    for (const p of ROLE_PERMISSIONS.viewer) expect(p === "auth.self" || p.endsWith(".read")).toBe(true);
  });

  it("every operation needs a known permission or is public, and the open operations are exactly the documented", () => {
    for (const spec of Object.values(OPERATIONS)) {
      const access: string = spec.access;
      expect(access === "public" || access === "webhook" || (PERMISSIONS as readonly string[]).includes(access)).toBe(
        true,
      );
    }
    const open = Object.values(OPERATIONS)
      .filter((spec) => spec.access === "public" || spec.access === "webhook")
      .map((spec) => `${spec.method} ${spec.path}`)
      .sort();
    expect(open).toEqual([
      "GET /auth/setup",
      "GET /health",
      "GET /health",
      "POST /auth/login",
      "POST /auth/logout",
      "POST /pipelines/{id}/webhook",
    ]);
    expect(OPERATIONS.purge.access).toBe("settings.edit");
    expect(OPERATIONS.createUser.access).toBe("users.manage");
    expect(OPERATIONS.getConnection.access).toBe("connections.write");
  });

  it("has one operation per method and path, and every permission is needed by some operation or role check", () => {
    const keys = Object.values(OPERATIONS).map(
      (spec) => `${"root" in spec ? "root" : "api"} ${spec.method} ${spec.path}`,
    );
    expect(new Set(keys).size).toBe(keys.length);
    const used = new Set<string>(Object.values(OPERATIONS).map((spec) => spec.access));
    expect(PERMISSIONS.filter((p) => !used.has(p))).toEqual([]);
  });
});
