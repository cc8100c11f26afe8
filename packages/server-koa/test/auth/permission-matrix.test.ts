import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS, ROLES, generateApiKey, roleHasPermission, type Role } from "../../../core/src/index.js";
import { registeredRoutes } from "../../src/index.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { bearer, usersPerRole } from "./users.js";

const API_KEY = generateApiKey();
const DUMMY_ID = "00000000-0000-7000-8000-000000000000";

type Caller = "anonymous" | "api-key" | Role;
const CALLERS: readonly Caller[] = ["anonymous", "api-key", ...ROLES];

function fillParams(path: string): string {
  return path.replace(/:[A-Za-z0-9_]+/g, (name) =>
    name === ":key" ? "some_key" : name === ":conn_id" ? "some-conn" : DUMMY_ID,
  );
}

describe("role × route permission matrix", () => {
  let t: TestServer;
  let tokens: Record<Role, string>;

  beforeAll(async () => {
    t = await startTestServer("sqlite", { apiKeys: [API_KEY] });
    tokens = await usersPerRole(t);
  });
  afterAll(async () => t?.close());

  function headersFor(caller: Caller): Record<string, string> {
    if (caller === "anonymous") return {};
    if (caller === "api-key") return { "x-api-key": API_KEY };
    return bearer(tokens[caller]);
  }

  it("every registered route answers each caller as the table says", async () => {
    const failures: string[] = [];
    for (const route of registeredRoutes(t.server.app)) {
      const access = OPERATIONS[route.operation].access;
      for (const caller of CALLERS) {
        const allowed =
          access === "public" ||
          caller === "api-key" ||
          (access !== "webhook" && caller !== "anonymous" && roleHasPermission(caller, access));
        const url = `${t.baseUrl}${route.prefix}${fillParams(route.path)}`;
        const hasBody = !["GET", "DELETE"].includes(route.method);
        const response = await fetch(url, {
          method: route.method,
          headers: { ...headersFor(caller), ...(hasBody ? { "content-type": "application/json" } : {}) },
          body: hasBody ? "{}" : undefined,
        });
        await response.arrayBuffer();
        const denied = response.status === 401 || response.status === 403;
        const expected = allowed ? "not 401/403" : caller === "anonymous" ? "401" : "403";
        // the webhook answers 401/403 for its own token; the table only has to let every caller reach it
        const ok =
          access === "webhook"
            ? response.status < 500
            : allowed
              ? !denied
              : response.status === (caller === "anonymous" ? 401 : 403);
        if (!ok)
          failures.push(`${route.method} ${route.path} as ${caller}: got ${response.status}, expected ${expected}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("follows docs/security.md: viewer reads, editor writes and runs, admin manages users and purges", async () => {
    const cases: [Caller, string, string, number][] = [
      ["anonymous", "GET", "/pipelines", 401],
      ["viewer", "GET", "/pipelines", 200],
      ["viewer", "POST", "/pipelines", 403],
      ["viewer", "GET", "/auth/users", 403],
      ["editor", "POST", "/pipelines", 400],
      ["editor", "DELETE", `/pipelines/${DUMMY_ID}`, 404],
      ["editor", "GET", "/auth/users", 403],
      ["editor", "POST", "/auth/users", 403],
      ["admin", "GET", "/auth/users", 200],
      ["superadmin", "GET", "/auth/users", 200],
      ["anonymous", "GET", "/auth/setup", 200],
      ["anonymous", "GET", "/health", 200],
      ["anonymous", "POST", "/auth/logout", 204],
      ["anonymous", "GET", "/auth/me", 401],
      ["viewer", "GET", "/auth/me", 200],
    ];
    for (const [caller, method, path, status] of cases) {
      const hasBody = method === "POST";
      const response = await t.fetch(path, { method, headers: headersFor(caller), ...(hasBody ? { json: {} } : {}) });
      expect(`${caller} ${method} ${path} → ${response.status}`).toBe(`${caller} ${method} ${path} → ${status}`);
    }
    expect(roleHasPermission("editor", "settings.edit")).toBe(false);
    expect(roleHasPermission("admin", "settings.edit")).toBe(true);
    expect(roleHasPermission("editor", "runs.execute")).toBe(true);
    expect(roleHasPermission("viewer", "runs.execute")).toBe(false);
  });

  it("API key works as Authorization: Bearer too, and a wrong key is 401", async () => {
    expect((await t.fetch("/auth/users", { headers: bearer(API_KEY) })).status).toBe(200);
    expect((await t.fetch("/auth/users", { headers: { "x-api-key": generateApiKey() } })).status).toBe(401);
    expect((await t.fetch("/auth/users", { headers: bearer(generateApiKey()) })).status).toBe(401);
  });

  it("an API key acts as admin on /auth/me", async () => {
    const me = await t.fetch("/auth/me", { headers: { "x-api-key": API_KEY } });
    expect(await me.json()).toEqual({ id: "api-key", username: "api-key", role: "admin" });
  });
});
