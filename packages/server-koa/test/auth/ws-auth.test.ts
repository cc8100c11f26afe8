import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { PASSWORD, tokenFor, usersPerRole } from "./users.js";

let t: TestServer;
let tokens: Awaited<ReturnType<typeof usersPerRole>>;
beforeAll(async () => {
  t = await startTestServer("sqlite");
  tokens = await usersPerRole(t);
});
afterAll(async () => t?.close());

/** Resolves with "open" or the HTTP status that refused the upgrade. */
function attempt(path: string, headers: Record<string, string> = {}): Promise<string | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}${path}`, { headers });
    ws.on("open", () => {
      ws.close();
      resolve("open");
    });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("error", () => undefined);
  });
}

describe("WebSocket authentication once users exist", () => {
  it("refuses anonymous and bad credentials before the upgrade", async () => {
    expect(await attempt("/ws")).toBe(401);
    expect(await attempt("/ws?token=garbage")).toBe(401);
  });

  it("accepts a bearer token, ?token= and the session cookie", async () => {
    expect(await attempt("/ws", { authorization: `Bearer ${tokens.viewer}` })).toBe("open");
    expect(await attempt(`/api/ws?token=${tokens.editor}`)).toBe("open");
    expect(await attempt("/ws", { cookie: `svc_session=${tokens.admin}` })).toBe("open");
  });
});

describe("WebSocket credentials are checked again while the socket is open", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer("sqlite", {}, { events: { recheckMs: 100 } });
    await usersPerRole(s);
  });
  afterAll(async () => s?.close());

  it("a socket whose token a password change revoked is closed (1008)", async () => {
    await s.fetch("/auth/users", {
      method: "POST",
      headers: { authorization: `Bearer ${await tokenFor(s, "admin")}` },
      json: { username: "leaver", password: PASSWORD, role: "viewer" },
    });
    const token = await tokenFor(s, "leaver");
    const ws = new WebSocket(`${s.baseUrl.replace("http", "ws")}/ws?token=${token}`);
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const changed = await s.fetch("/auth/change-password", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      json: { current_password: PASSWORD, new_password: "a brand new secret" },
    });
    expect(changed.status).toBe(200);
    expect(await closed).toBe(1008);
  });
});
