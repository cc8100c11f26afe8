import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt, decodeProtectedHeader } from "jose";
import type { LoginResponse, Role, User } from "../../../core/src/index.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { PASSWORD, bearer, json, login, tokenFor, usersPerRole } from "./users.js";

/** Set-Cookie parsed into its name, value and attributes (lower-cased names). */
function parseSetCookie(header: string): { name: string; value: string; attributes: Record<string, string | true> } {
  const [pair = "", ...rest] = header.split(";").map((p) => p.trim());
  const eq = pair.indexOf("=");
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const i = part.indexOf("=");
    if (i < 0) attributes[part.toLowerCase()] = true;
    else attributes[part.slice(0, i).toLowerCase()] = part.slice(i + 1);
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}

function sessionCookie(response: Response) {
  const found = response.headers
    .getSetCookie()
    .map(parseSetCookie)
    .find((c) => c.name === "svc_session");
  if (!found) throw new Error("no svc_session cookie");
  return found;
}

describe("login, session cookie and tokens", () => {
  let t: TestServer;
  let tokens: Record<Role, string>;

  beforeAll(async () => {
    t = await startTestServer("sqlite");
    tokens = await usersPerRole(t);
  });
  afterAll(async () => t?.close());

  it("login returns the token and the user", async () => {
    const response = await login(t, "editor");
    expect(response.status).toBe(200);
    const body = await json<LoginResponse>(response);
    expect(body.user).toEqual({ id: expect.any(String), username: "editor", role: "editor" });
    expect(typeof body.token).toBe("string");
  });

  it("the JWT is HS256 with sub, username, role, iat and a 24 h exp", async () => {
    const body = await json<LoginResponse>(await login(t, "viewer"));
    expect(decodeProtectedHeader(body.token).alg).toBe("HS256");
    const claims = decodeJwt(body.token);
    expect(claims).toMatchObject({ sub: body.user.id, username: "viewer", role: "viewer" });
    expect(Number.isInteger(claims.iat)).toBe(true);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(86_400);
  });

  it("sets svc_session: HttpOnly, SameSite=Lax, Max-Age=86400, Path=/, not Secure over plain HTTP", async () => {
    const response = await login(t, "viewer");
    const cookie = sessionCookie(response);
    const { token } = await json<LoginResponse>(response);
    expect(cookie.value).toBe(token);
    expect(cookie.attributes.httponly).toBe(true);
    expect(cookie.attributes.samesite).toBe("Lax");
    expect(cookie.attributes["max-age"]).toBe("86400");
    expect(cookie.attributes.path).toBe("/");
    expect(cookie.attributes.secure).toBeUndefined();
  });

  it("ignores X-Forwarded-Proto unless the proxy is trusted", async () => {
    const response = await t.fetch("/auth/login", {
      method: "POST",
      headers: { "x-forwarded-proto": "https" },
      json: { username: "viewer", password: PASSWORD },
    });
    expect(sessionCookie(response).attributes.secure).toBeUndefined();
  });

  it("the cookie authenticates requests, and logout clears it", async () => {
    const cookie = sessionCookie(await login(t, "viewer"));
    const me = await t.fetch("/auth/me", { headers: { cookie: `svc_session=${cookie.value}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as User).username).toBe("viewer");

    const logout = await t.fetch("/auth/logout", {
      method: "POST",
      headers: { cookie: `svc_session=${cookie.value}` },
    });
    expect(logout.status).toBe(204);
    const cleared = sessionCookie(logout);
    expect(cleared.value).toBe("");
    expect(cleared.attributes["max-age"]).toBe("0");
    expect(cleared.attributes.httponly).toBe(true);
    expect(cleared.attributes.path).toBe("/");
  });

  it("Bearer wins over the cookie", async () => {
    const viewerCookie = `svc_session=${tokens.viewer}`;
    const asAdmin = await t.fetch("/auth/me", { headers: { ...bearer(tokens.admin), cookie: viewerCookie } });
    expect(((await asAdmin.json()) as User).role).toBe("admin");
    const badBearer = await t.fetch("/auth/me", { headers: { ...bearer("not-a-token"), cookie: viewerCookie } });
    expect(badBearer.status).toBe(401);
  });

  it("bad, tampered and garbage credentials are 401 with a JSON error", async () => {
    const [head, payload, signature] = tokens.viewer.split(".") as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(tokens.viewer), role: "admin" })).toString("base64url");
    for (const token of [`${head}.${forged}.${signature}`, `${head}.${payload}.`, "x.y.z", "", "Bearer"]) {
      const response = await t.fetch("/auth/users", { headers: bearer(token) });
      expect(response.status).toBe(401);
      expect(await response.json()).toHaveProperty("error");
    }
    expect((await t.fetch("/pipelines", { headers: { cookie: "svc_session=garbage" } })).status).toBe(401);
  });

  it("a wrong password and an unknown user are both 401 with the same message", async () => {
    const wrong = await login(t, "viewer", "wrong password!");
    const unknown = await login(t, "nobody-here", "wrong password!");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it("malformed login bodies are 400", async () => {
    for (const body of [{}, { username: "x" }, { username: 1, password: 2 }, []]) {
      expect((await t.fetch("/auth/login", { method: "POST", json: body })).status).toBe(400);
    }
    const raw = await t.fetch("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(raw.status).toBe(400);
  });
});

describe("users", () => {
  let t: TestServer;
  let tokens: Record<Role, string>;

  beforeAll(async () => {
    t = await startTestServer("sqlite");
    tokens = await usersPerRole(t);
  });
  afterAll(async () => t?.close());

  it("admin creates users: 201, duplicate 409, bad role or short password 400", async () => {
    const create = (body: unknown) =>
      t.fetch("/auth/users", { method: "POST", headers: bearer(tokens.admin), json: body });
    const created = await create({ username: "erin", password: PASSWORD, role: "editor" });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: expect.any(String), username: "erin", role: "editor" });
    expect((await create({ username: "erin", password: PASSWORD, role: "viewer" })).status).toBe(409);
    expect((await create({ username: "frank", password: PASSWORD, role: "owner" })).status).toBe(400);
    expect((await create({ username: "frank", password: "short", role: "viewer" })).status).toBe(400);
    expect((await create({ username: " frank", password: PASSWORD, role: "viewer" })).status).toBe(400);
    expect((await create({ password: PASSWORD, role: "viewer" })).status).toBe(400);
  });

  it("a username that looks like another (invisible or direction-changing characters) is refused; accents are fine", async () => {
    // found by a helper's black-box attack: 'admin' and 'admin\u200b' listed alike in the Users view
    const create = (username: string) =>
      t.fetch("/auth/users", { method: "POST", headers: bearer(tokens.admin), json: { username, password: PASSWORD } });
    for (const lookalike of [
      "admin\u200b",
      "\u200badmin",
      "ad\u200dmin",
      "\u202eadmin",
      "admin\u2066",
      "\ufeffadmin",
    ]) {
      const res = await create(lookalike);
      expect(res.status, JSON.stringify(lookalike)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/invisible|control/);
    }
    // variation selectors, Hangul fillers, the Braille blank: invisible too (a second helper's attack)
    for (const lookalike of ["adm\ufe0f", "adm\u3164", "adm\u2800", "\u115fadmin", "adm\u034f"]) {
      const res = await create(lookalike);
      expect(res.status, JSON.stringify(lookalike)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/invisible/);
    }
    expect((await create("José Müller-Öztürk")).status).toBe(201);
    expect((await create("李小龍")).status).toBe(201);
    // the same name with a combining accent is the same user, not a second one that looks alike
    const decomposed = "Jose\u0301 Müller-Öztürk";
    expect((await create(decomposed)).status).toBe(409);
    // spaces other than one plain space look like one: refused; NFC cannot take a name past 255 characters
    for (const lookalike of ["José\u00a0Müller", "José\u2002Müller", "José  Müller", "ad\u2028min"]) {
      const res = await create(lookalike);
      expect(res.status, JSON.stringify(lookalike)).toBe(400);
    }
    const lengthened = await create("\ufb2c".repeat(255));
    expect(lengthened.status).toBe(400);
    expect(((await lengthened.json()) as { error: string }).error).toMatch(/at most 255/);
    const login = await t.fetch("/auth/login", { method: "POST", json: { username: decomposed, password: PASSWORD } });
    expect(login.status).toBe(200);
    expect(((await login.json()) as { user: { username: string } }).user.username).toBe("José Müller-Öztürk");
  });

  it("GET /auth/users lists users without password hashes", async () => {
    const response = await t.fetch("/auth/users", { headers: bearer(tokens.admin) });
    const users = (await response.json()) as User[];
    expect(users.map((u) => u.username)).toEqual(expect.arrayContaining(["admin", "superadmin", "editor", "viewer"]));
    expect(JSON.stringify(users)).not.toContain("scrypt");
    for (const u of users) expect(Object.keys(u).sort()).toEqual(["id", "role", "username"]);
  });

  it("a password change revokes every earlier token at once, and the new token works", async () => {
    await t.fetch("/auth/users", {
      method: "POST",
      headers: bearer(tokens.admin),
      json: { username: "gina", password: PASSWORD, role: "viewer" },
    });
    const old = await tokenFor(t, "gina");
    const change = await t.fetch("/auth/change-password", {
      method: "POST",
      headers: bearer(old),
      json: { current_password: PASSWORD, new_password: "a brand new password" },
    });
    expect(change.status).toBe(200);
    const fresh = await json<LoginResponse>(change);
    expect((await t.fetch("/auth/me", { headers: bearer(old) })).status).toBe(401);
    expect((await t.fetch("/auth/me", { headers: { cookie: `svc_session=${old}` } })).status).toBe(401);
    expect((await t.fetch("/auth/me", { headers: bearer(fresh.token) })).status).toBe(200);
    // logging in right after the change works too
    expect((await login(t, "gina", PASSWORD)).status).toBe(401);
    const again = await tokenFor(t, "gina", "a brand new password");
    expect((await t.fetch("/auth/me", { headers: bearer(again) })).status).toBe(200);
  });

  it("a second password change within the same second still revokes the token issued by the first", async () => {
    await t.fetch("/auth/users", {
      method: "POST",
      headers: bearer(tokens.admin),
      json: { username: "hank", password: PASSWORD, role: "viewer" },
    });
    const first = await tokenFor(t, "hank");
    const change = await t.fetch("/auth/change-password", {
      method: "POST",
      headers: bearer(first),
      json: { current_password: PASSWORD, new_password: "second password" },
    });
    const afterFirstChange = (await json<LoginResponse>(change)).token;
    const me = (await (await t.fetch("/auth/me", { headers: bearer(afterFirstChange) })).json()) as User;
    await t.fetch("/auth/admin-reset-password", {
      method: "POST",
      headers: bearer(tokens.admin),
      json: { user_id: me.id, new_password: "third password" },
    });
    expect((await t.fetch("/auth/me", { headers: bearer(afterFirstChange) })).status).toBe(401);
    const latest = await tokenFor(t, "hank", "third password");
    expect((await t.fetch("/auth/me", { headers: bearer(latest) })).status).toBe(200);
  });

  it("change-password checks the current password and the new one's length", async () => {
    const token = await tokenFor(t, "editor");
    const change = (body: unknown) =>
      t.fetch("/auth/change-password", { method: "POST", headers: bearer(token), json: body });
    expect((await change({ current_password: "wrong password", new_password: "another password" })).status).toBe(400);
    expect((await change({ current_password: PASSWORD, new_password: "short" })).status).toBe(400);
    expect((await t.fetch("/auth/me", { headers: bearer(token) })).status).toBe(200);
  });

  it("admin reset sets a new password and revokes the user's tokens", async () => {
    const viewerToken = await tokenFor(t, "viewer");
    const me = (await (await t.fetch("/auth/me", { headers: bearer(viewerToken) })).json()) as User;
    const reset = await t.fetch("/auth/admin-reset-password", {
      method: "POST",
      headers: bearer(tokens.admin),
      json: { user_id: me.id, new_password: "reset by the admin" },
    });
    expect(reset.status).toBe(200);
    expect((await t.fetch("/auth/me", { headers: bearer(viewerToken) })).status).toBe(401);
    expect((await login(t, "viewer", "reset by the admin")).status).toBe(200);
    const unknown = await t.fetch("/auth/admin-reset-password", {
      method: "POST",
      headers: bearer(tokens.admin),
      json: { user_id: "no-such-user", new_password: "reset by the admin" },
    });
    expect(unknown.status).toBe(404);
  });

  it("only admins reset passwords", async () => {
    const response = await t.fetch("/auth/admin-reset-password", {
      method: "POST",
      headers: bearer(tokens.editor),
      json: { user_id: "x", new_password: "reset by the admin" },
    });
    expect(response.status).toBe(403);
  });
});
