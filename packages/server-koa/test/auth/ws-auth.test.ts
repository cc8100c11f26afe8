import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { usersPerRole } from "./users.js";

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
