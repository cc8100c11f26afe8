import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { PASSWORD } from "./users.js";

const ALLOWED = "http://localhost:5173";

function expectSecurityHeaders(response: Response): void {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
  expect(response.headers.get("strict-transport-security")).toContain("max-age=");
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  expect(response.headers.get("x-powered-by")).toBeNull();
}

describe("security headers and CORS off by default", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
    await t.fetch("/auth/users", { method: "POST", json: { username: "admin", password: PASSWORD } });
  });
  afterAll(async () => t?.close());

  it("every response carries the security headers: 200, 401, 404, 400", async () => {
    expectSecurityHeaders(await t.fetch("/health"));
    expectSecurityHeaders(await t.fetch("/pipelines"));
    expectSecurityHeaders(await t.fetch("/no-such-route"));
    expectSecurityHeaders(await t.fetch("/auth/login", { method: "POST", json: {} }));
  });

  it("sends no CORS headers unless configured", async () => {
    const response = await t.fetch("/auth/setup", { headers: { origin: ALLOWED } });
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await t.fetch("/pipelines", {
      method: "OPTIONS",
      headers: { origin: ALLOWED, "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("CORS with configured origins, behind a trusted proxy", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite", {}, { corsOrigins: [ALLOWED], proxy: true });
    await t.fetch("/auth/users", { method: "POST", json: { username: "admin", password: PASSWORD } });
  });
  afterAll(async () => t?.close());

  it("answers a preflight from an allowed origin, with credentials, without authentication", async () => {
    const preflight = await t.fetch("/pipelines", {
      method: "OPTIONS",
      headers: {
        origin: ALLOWED,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(preflight.headers.get("access-control-allow-credentials")).toBe("true");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
  });

  it("adds CORS headers to real responses, errors included", async () => {
    const denied = await t.fetch("/pipelines", { headers: { origin: ALLOWED } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toBe('Bearer realm="sluice"');
    expect(denied.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expectSecurityHeaders(denied);
  });

  it("ignores other origins", async () => {
    const response = await t.fetch("/auth/setup", { headers: { origin: "http://evil.localhost" } });
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("marks the session cookie Secure when the trusted proxy says https", async () => {
    const login = await t.fetch("/auth/login", {
      method: "POST",
      headers: { "x-forwarded-proto": "https" },
      json: { username: "admin", password: PASSWORD },
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith("svc_session="));
    expect(cookie?.split(";").map((p) => p.trim())).toContain("Secure");
    const plain = await t.fetch("/auth/login", { method: "POST", json: { username: "admin", password: PASSWORD } });
    expect(plain.headers.getSetCookie().find((c) => c.startsWith("svc_session="))).not.toContain("Secure");
  });
});
