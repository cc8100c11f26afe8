import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { PERMISSIONS, ROLE_PERMISSIONS, ROUTE_PERMISSIONS, routeAccess, routeKey } from "../../src/auth/permissions.js";
import { ROLES } from "../../src/model/user.js";

describe("permission table", () => {
  it("roles are nested: viewer ⊂ editor ⊂ admin ⊂ superadmin = everything", () => {
    const order = ["viewer", "editor", "admin", "superadmin"] as const;
    for (let i = 1; i < order.length; i++) {
      const lower = ROLE_PERMISSIONS[order[i - 1] as (typeof order)[number]];
      const higher = ROLE_PERMISSIONS[order[i] as (typeof order)[number]];
      for (const p of lower) expect(higher.has(p)).toBe(true);
      expect(higher.size).toBeGreaterThan(lower.size);
    }
    expect([...ROLE_PERMISSIONS.superadmin].sort()).toEqual([...PERMISSIONS].sort());
    expect(Object.keys(ROLE_PERMISSIONS).sort()).toEqual([...ROLES].sort());
  });

  it("settings.edit belongs to admin and above only; viewers only read", () => {
    expect(ROLE_PERMISSIONS.admin.has("settings.edit")).toBe(true);
    expect(ROLE_PERMISSIONS.editor.has("settings.edit")).toBe(false);
    for (const p of ROLE_PERMISSIONS.viewer) expect(p === "auth.self" || p.endsWith(".read")).toBe(true);
  });

  it("every route needs a known permission or is public, and the open routes are exactly DESIGN.md's", () => {
    for (const access of Object.values(ROUTE_PERMISSIONS)) {
      expect(access === "public" || (PERMISSIONS as readonly string[]).includes(access)).toBe(true);
    }
    const open = Object.entries(ROUTE_PERMISSIONS)
      .filter(([, access]) => access === "public")
      .map(([key]) => key)
      .sort();
    expect(open).toEqual(["GET /auth/setup", "GET /health", "POST /auth/login", "POST /auth/logout", "POST /pipelines/:id/webhook"]);
    expect(ROUTE_PERMISSIONS["POST /system/purge"]).toBe("settings.edit");
    expect(ROUTE_PERMISSIONS["POST /auth/users"]).toBe("users.manage");
  });

  it("looks routes up whatever the parameter names, HEAD as GET, unknown routes undefined", () => {
    expect(routeAccess("POST", "/pipelines/:id/run")).toBe("runs.execute");
    expect(routeAccess("HEAD", "/pipelines/:pipelineId")).toBe("pipelines.read");
    expect(routeAccess("post", "/pipelines/:x/dlq/:y/resolve")).toBe("dlq.resolve");
    expect(routeAccess("GET", "/not/a/route")).toBeUndefined();
    expect(routeAccess("DELETE", "/auth/users")).toBeUndefined();
    expect(routeKey("GET", "/runs/:run_id/")).toBe("GET /runs/:param");
  });

  it("table keys are unique after normalisation (no two entries for one route)", () => {
    const keys = Object.keys(ROUTE_PERMISSIONS).map((k) => {
      const [method = "", path = ""] = k.split(" ");
      return routeKey(method, path);
    });
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("docs/auth.md lists every route with its permission", () => {
    const doc = fs.readFileSync(new URL("../../../../docs/auth.md", import.meta.url), "utf8");
    for (const [key, access] of Object.entries(ROUTE_PERMISSIONS)) {
      const [method, path] = key.split(" ");
      const needs = access === "public" ? "open" : `\`${access}\``;
      expect(doc).toContain(`| ${method} | \`${path}\` | ${needs} |`);
    }
  });
});
