/**
 * Privilege escalation between roles (issue 14): an admin (or the API key, which acts as admin) tries to make a
 * superadmin, to take over one by resetting its password, or to demote or delete the last one. Each attempt must
 * fail and leave the superadmin as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey, type Role, type User } from "../../../core/src/index.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { PASSWORD, bearer, login, usersPerRole } from "../auth/users.js";

const API_KEY = generateApiKey();
let t: TestServer;
let tokens: Record<Role, string>;

const users = async (): Promise<User[]> =>
  (await (await t.fetch("/auth/users", { headers: bearer(tokens.superadmin) })).json()) as User[];
const superadmin = async (): Promise<User> => (await users()).find((u) => u.username === "superadmin") as User;

beforeAll(async () => {
  t = await startTestServer("sqlite", { apiKeys: [API_KEY] });
  tokens = await usersPerRole(t);
});
afterAll(async () => t?.close());

describe("an admin or the API key", () => {
  it("creating a superadmin → 403, and no such user exists", async () => {
    for (const [who, headers] of [
      ["admin", bearer(tokens.admin)],
      ["api-key", { "x-api-key": API_KEY }],
    ] as const) {
      const response = await t.fetch("/auth/users", {
        method: "POST",
        headers,
        json: { username: `sneaky-${who}`, password: PASSWORD, role: "superadmin" },
      });
      expect(response.status, who).toBe(403);
    }
    expect((await users()).some((u) => u.username.startsWith("sneaky"))).toBe(false);
  });

  it("resetting a superadmin's password → 403; the superadmin's password still works", async () => {
    const target = await superadmin();
    for (const headers of [bearer(tokens.admin), { "x-api-key": API_KEY }]) {
      const response = await t.fetch("/auth/admin-reset-password", {
        method: "POST",
        headers,
        json: { user_id: target.id, new_password: "attacker-chosen-pw" },
      });
      expect(response.status).toBe(403);
    }
    expect((await login(t, "superadmin", "attacker-chosen-pw")).status).toBe(401);
    expect((await login(t, "superadmin", PASSWORD)).status).toBe(200);
  });

  it("demoting or deleting the last superadmin is refused: it stays a superadmin", async () => {
    const target = await superadmin();
    const attempts = [
      t.fetch(`/auth/users/${target.id}`, { method: "PUT", headers: bearer(tokens.admin), json: { role: "viewer" } }),
      t.fetch(`/auth/users/${target.id}`, { method: "PATCH", headers: bearer(tokens.admin), json: { role: "viewer" } }),
      t.fetch(`/auth/users/${target.id}`, { method: "DELETE", headers: bearer(tokens.admin) }),
      t.fetch("/auth/users", {
        method: "POST",
        headers: bearer(tokens.admin),
        json: { username: "superadmin", password: PASSWORD, role: "viewer" },
      }),
    ];
    for (const response of await Promise.all(attempts)) expect(response.status).toBeGreaterThanOrEqual(400);
    expect((await users()).filter((u) => u.role === "superadmin")).toEqual([
      expect.objectContaining({ id: target.id, username: "superadmin" }),
    ]);
    expect((await t.fetch("/auth/me", { headers: bearer(tokens.superadmin) })).status).toBe(200);
  });

  it("(control) an admin still manages everyone below superadmin", async () => {
    const created = await t.fetch("/auth/users", {
      method: "POST",
      headers: bearer(tokens.admin),
      json: { username: "second-admin", password: PASSWORD, role: "admin" },
    });
    expect(created.status).toBe(201);
    const editor = (await users()).find((u) => u.username === "editor") as User;
    const reset = await t.fetch("/auth/admin-reset-password", {
      method: "POST",
      headers: bearer(tokens.admin),
      json: { user_id: editor.id, new_password: "new-editor-pw" },
    });
    expect(reset.status).toBe(200);
  });
});

describe("a superadmin", () => {
  it("creates a superadmin and resets a superadmin's password", async () => {
    const created = await t.fetch("/auth/users", {
      method: "POST",
      headers: bearer(tokens.superadmin),
      json: { username: "deputy", password: PASSWORD, role: "superadmin" },
    });
    expect(created.status).toBe(201);
    const deputy = (await created.json()) as User;
    expect(deputy.role).toBe("superadmin");
    const reset = await t.fetch("/auth/admin-reset-password", {
      method: "POST",
      headers: bearer(tokens.superadmin),
      json: { user_id: deputy.id, new_password: "deputy-new-pw" },
    });
    expect(reset.status).toBe(200);
    expect((await login(t, "deputy", "deputy-new-pw")).status).toBe(200);
  });
});
