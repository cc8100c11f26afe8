/**
 * Cross-site request forgery (issue 14): a page on https://evil.example makes the victim's browser send its
 * `svc_session` cookie with a state-changing request, or open the event stream. Each test sends exactly what that
 * browser would (cookie + Origin / Sec-Fetch-Site) and asserts a 403 and that nothing changed; bearer and API-key
 * clients, which a page on another origin cannot imitate, keep working.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { generateApiKey, type Role } from "../../../core/src/index.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { PASSWORD, bearer, login, usersPerRole } from "../auth/users.js";

const EVIL = "https://evil.example";
const TRUSTED = "http://localhost:5173";
const API_KEY = generateApiKey();

let t: TestServer;
let tokens: Record<Role, string>;
/** The editor's session cookie as the browser holds it (from a real login). */
let cookie = "";

beforeAll(async () => {
  t = await startTestServer("sqlite", { apiKeys: [API_KEY] }, { corsOrigins: [TRUSTED] });
  tokens = await usersPerRole(t);
  const response = await login(t, "editor", PASSWORD);
  cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  expect(cookie).toMatch(/^svc_session=./);
});
afterAll(async () => t?.close());

async function pipelineNames(): Promise<string[]> {
  const list = (await (await t.fetch("/pipelines", { headers: bearer(tokens.editor) })).json()) as { name: string }[];
  return list.map((p) => p.name);
}

const createWith = (name: string, headers: Record<string, string>) =>
  t.fetch("/pipelines", { method: "POST", headers, json: { name } });

describe("a cookie-only state change from another origin", () => {
  it("POST with Origin: https://evil.example → 403 JSON error, no pipeline created", async () => {
    const response = await createWith("csrf-origin", { cookie, origin: EVIL });
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(((await response.json()) as { error: string }).error).toMatch(/cross-origin/);
    expect(await pipelineNames()).not.toContain("csrf-origin");
  });

  it("a form-like POST (text/plain, no preflight) of a JSON body from evil.example → 403, no pipeline created", async () => {
    // a text body is read as JSON (body-content-type.test.ts): the one a cross-site form or fetch can send unasked
    const response = await t.fetch("/pipelines", {
      method: "POST",
      headers: { cookie, origin: EVIL, "content-type": "text/plain" },
      body: JSON.stringify({ name: "csrf-text-plain" }),
    });
    expect(response.status).toBe(403);
    expect(await pipelineNames()).not.toContain("csrf-text-plain");
  });

  it("POST with Sec-Fetch-Site: cross-site and no Origin → 403, no pipeline created", async () => {
    const response = await createWith("csrf-fetch-site", { cookie, "sec-fetch-site": "cross-site" });
    expect(response.status).toBe(403);
    expect(await pipelineNames()).not.toContain("csrf-fetch-site");
  });

  it("an Origin naming another host is refused even with Sec-Fetch-Site: same-origin (DESIGN §5)", async () => {
    for (const site of ["same-origin", "SAME-ORIGIN"]) {
      const response = await createWith(`csrf-site-${site}`, { cookie, origin: EVIL, "sec-fetch-site": site });
      expect(response.status).toBe(403);
    }
    expect((await pipelineNames()).filter((n) => n.startsWith("csrf-site-"))).toEqual([]);
    // only the scheme differs (a TLS proxy the server was not told of): the browser's same-origin stands
    const behindProxy = t.baseUrl.replace(/^http:/, "https:");
    const proxied = await createWith("same-origin-proxied", {
      cookie,
      origin: behindProxy,
      "sec-fetch-site": "same-origin",
    });
    expect(proxied.status).toBe(201);
  });

  it("another port, a sibling site, Origin: null, or a bad Origin are other origins too", async () => {
    const port = new URL(t.baseUrl).port;
    for (const origin of [
      `http://127.0.0.1:${Number(port) === 1 ? 2 : 1}`,
      `https://127.0.0.1:${port}`,
      "null",
      "not a url",
    ]) {
      const response = await createWith("csrf-variant", { cookie, origin });
      expect(response.status, origin).toBe(403);
    }
    expect((await createWith("csrf-variant", { cookie, "sec-fetch-site": "same-site" })).status).toBe(403);
    expect(await pipelineNames()).not.toContain("csrf-variant");
  });

  it("PUT, PATCH and DELETE of an existing pipeline from evil.example change nothing", async () => {
    const p = (await (await createWith("victim", bearer(tokens.editor))).json()) as { id: string; description: string };
    for (const method of ["PUT", "PATCH"]) {
      const response = await t.fetch(`/pipelines/${p.id}`, {
        method,
        headers: { cookie, origin: EVIL },
        json: { description: "pwned" },
      });
      expect(response.status).toBe(403);
    }
    expect((await t.fetch(`/pipelines/${p.id}`, { method: "DELETE", headers: { cookie, origin: EVIL } })).status).toBe(
      403,
    );
    expect(
      (await t.fetch(`/pipelines/${p.id}/run`, { method: "POST", headers: { cookie, origin: EVIL }, json: {} })).status,
    ).toBe(403);
    const after = (await (await t.fetch(`/pipelines/${p.id}`, { headers: bearer(tokens.editor) })).json()) as {
      description: string;
    };
    expect(after.description).toBe("");
    const runs = (await (
      await t.fetch(`/pipelines/${p.id}/runs`, { headers: bearer(tokens.editor) })
    ).json()) as unknown[];
    expect(runs).toEqual([]);
  });

  it("a cross-origin login (login CSRF) is refused too", async () => {
    const response = await t.fetch("/auth/login", {
      method: "POST",
      headers: { origin: EVIL },
      json: { username: "editor", password: PASSWORD },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("set-cookie")).toBeNull();
  });
});

describe("what stays allowed", () => {
  it("the same cookie from this origin (Origin or Sec-Fetch-Site: same-origin) creates the pipeline", async () => {
    expect((await createWith("same-origin-a", { cookie, origin: t.baseUrl })).status).toBe(201);
    expect((await createWith("same-origin-b", { cookie, "sec-fetch-site": "same-origin" })).status).toBe(201);
    expect((await createWith("no-browser-headers", { cookie })).status).toBe(201);
  });

  it("a configured CORS origin may use the cookie", async () => {
    expect((await createWith("trusted-origin", { cookie, origin: TRUSTED })).status).toBe(201);
  });

  it("bearer tokens and API keys from evil.example are unaffected (a page there cannot set them)", async () => {
    expect(
      (await createWith("bearer-cross", { ...bearer(tokens.editor), origin: EVIL, "sec-fetch-site": "cross-site" }))
        .status,
    ).toBe(201);
    expect((await createWith("api-key-cross", { "x-api-key": API_KEY, origin: EVIL, cookie })).status).toBe(201);
  });

  it("reads are unaffected (CORS keeps other origins from reading the answer)", async () => {
    expect((await t.fetch("/pipelines", { headers: { cookie, origin: EVIL } })).status).toBe(200);
  });

  it("the webhook, authenticated by its own token, accepts any origin", async () => {
    const token = "webhook-token-0123456789";
    const p = (await (
      await t.fetch("/pipelines", {
        method: "POST",
        headers: bearer(tokens.editor),
        json: { name: "hooked", webhook_token: token },
      })
    ).json()) as { id: string };
    const response = await t.fetch(`/pipelines/${p.id}/webhook?token=${token}`, {
      method: "POST",
      headers: { origin: EVIL },
    });
    expect(response.status).toBe(202);
  });
});

describe("a cookie-authenticated WebSocket from another origin", () => {
  const wsUrl = () => `${t.baseUrl.replace("http", "ws")}/ws`;

  /** The HTTP status of the upgrade answer, or 101 when the socket opened. */
  function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once("open", () => {
        ws.close();
        resolve(101);
      });
      ws.once("unexpected-response", (_req, res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      ws.once("error", reject);
    });
  }

  it("is refused with 403 (Origin or Sec-Fetch-Site: cross-site)", async () => {
    expect(await upgradeStatus(wsUrl(), { cookie, origin: EVIL })).toBe(403);
    expect(
      await upgradeStatus(`${t.baseUrl.replace("http", "ws")}/api/ws`, { cookie, "sec-fetch-site": "cross-site" }),
    ).toBe(403);
  });

  it("opens from this origin, and with ?token= from anywhere", async () => {
    expect(await upgradeStatus(wsUrl(), { cookie, origin: t.baseUrl })).toBe(101);
    expect(await upgradeStatus(`${wsUrl()}?token=${tokens.viewer}`, { origin: EVIL })).toBe(101);
  });
});

describe("open mode (no user, no key)", () => {
  let open: TestServer;
  beforeAll(async () => {
    open = await startTestServer("sqlite");
  });
  afterAll(async () => open?.close());

  it("a page on evil.example cannot create the first user or a pipeline", async () => {
    const user = await open.fetch("/auth/users", {
      method: "POST",
      headers: { origin: EVIL },
      json: { username: "mallory", password: PASSWORD },
    });
    expect(user.status).toBe(403);
    expect(
      (await open.fetch("/pipelines", { method: "POST", headers: { origin: EVIL }, json: { name: "x" } })).status,
    ).toBe(403);
    expect(await (await open.fetch("/auth/setup")).json()).toEqual({ needs_setup: true });
    expect(await (await open.fetch("/pipelines")).json()).toEqual([]);
  });
});

describe("behind a trusted TLS proxy", () => {
  let proxied: TestServer;
  let proxiedCookie = "";
  beforeAll(async () => {
    proxied = await startTestServer("sqlite", {}, { proxy: true });
    await usersPerRole(proxied);
    proxiedCookie = `svc_session=${((await (await login(proxied, "editor", PASSWORD)).json()) as { token: string }).token}`;
  });
  afterAll(async () => proxied?.close());

  it("its public https origin is this origin; others are still refused", async () => {
    const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "sluice.example.com", cookie: proxiedCookie };
    const ok = await proxied.fetch("/pipelines", {
      method: "POST",
      headers: { ...forwarded, origin: "https://sluice.example.com" },
      json: { name: "via-proxy" },
    });
    expect(ok.status).toBe(201);
    const evil = await proxied.fetch("/pipelines", {
      method: "POST",
      headers: { ...forwarded, origin: EVIL },
      json: { name: "evil-via-proxy" },
    });
    expect(evil.status).toBe(403);
  });
});
