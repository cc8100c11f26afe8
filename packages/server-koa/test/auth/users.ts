/** Test helpers: populate a server with one user per role and log each of them in. */
import type { LoginResponse, Role } from "../../../core/src/index.js";
import type { TestServer } from "../../../../test-support/http.js";

export const PASSWORD = "correct horse battery";

export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Anything that can call the API like a TestServer. */
export type ApiCaller = Pick<TestServer, "fetch">;

export async function login(t: ApiCaller, username: string, password = PASSWORD): Promise<Response> {
  return t.fetch("/auth/login", { method: "POST", json: { username, password } });
}

export async function tokenFor(t: ApiCaller, username: string, password = PASSWORD): Promise<string> {
  const response = await login(t, username, password);
  if (response.status !== 200)
    throw new Error(`login of ${username} failed: ${response.status} ${await response.text()}`);
  return (await json<LoginResponse>(response)).token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Creates the first user (`admin`: anonymously in open mode, with the server's API key when it has one), the
 * superadmin through the operator's path (only a superadmin creates one over HTTP), and as admin one user per
 * other role; returns a token per role.
 */
export async function usersPerRole(t: Pick<TestServer, "fetch" | "sluice">): Promise<Record<Role, string>> {
  const apiKey = t.sluice.options.apiKeys[0];
  const first = await t.fetch("/auth/users", {
    method: "POST",
    headers: apiKey ? { "x-api-key": apiKey } : {},
    json: { username: "admin", password: PASSWORD, role: "admin" },
  });
  if (first.status !== 201) throw new Error(`first user: ${first.status} ${await first.text()}`);
  await t.sluice.auth.createUserAsOperator({ username: "superadmin", password: PASSWORD, role: "superadmin" });
  const admin = await tokenFor(t, "admin");
  for (const role of ["editor", "viewer"] as const) {
    const created = await t.fetch("/auth/users", {
      method: "POST",
      headers: bearer(admin),
      json: { username: role, password: PASSWORD, role },
    });
    if (created.status !== 201) throw new Error(`${role}: ${created.status} ${await created.text()}`);
  }
  return {
    admin,
    superadmin: await tokenFor(t, "superadmin"),
    editor: await tokenFor(t, "editor"),
    viewer: await tokenFor(t, "viewer"),
  };
}
