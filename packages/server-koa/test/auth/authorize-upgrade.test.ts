import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey, isSluiceError } from "../../../core/src/index.js";
import { authorizeUpgrade } from "../../src/index.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { usersPerRole } from "./users.js";

const upgrade = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (e) {
    if (isSluiceError(e)) return e.status;
    throw e;
  }
}

describe("WebSocket upgrade authorization (/ws)", () => {
  let t: TestServer;
  const apiKey = generateApiKey();
  let viewer: string;

  beforeAll(async () => {
    t = await startTestServer("sqlite", { apiKeys: [apiKey] });
    viewer = (await usersPerRole(t)).viewer;
  });
  afterAll(async () => t?.close());

  it("accepts a token in ?token=, a bearer, a cookie or an API key; refuses none or a bad one with 401", async () => {
    expect(await statusOf(authorizeUpgrade(t.sluice, upgrade(`/ws?token=${viewer}`)))).toBe(200);
    expect(await statusOf(authorizeUpgrade(t.sluice, upgrade("/api/ws", { authorization: `Bearer ${viewer}` })))).toBe(
      200,
    );
    expect(await statusOf(authorizeUpgrade(t.sluice, upgrade("/ws", { cookie: `svc_session=${viewer}` })))).toBe(200);
    expect(await statusOf(authorizeUpgrade(t.sluice, upgrade("/ws", { "x-api-key": apiKey })))).toBe(200);
    expect(await statusOf(authorizeUpgrade(t.sluice, upgrade("/ws")))).toBe(401);
    expect(await statusOf(authorizeUpgrade(t.sluice, upgrade("/ws?token=nope")))).toBe(401);
  });
});
