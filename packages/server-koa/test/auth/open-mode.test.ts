import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, generateApiKey, silentLogger } from "../../../core/src/index.js";
import { startServer } from "../../src/index.js";
import { testDialects } from "../../../../test-support/databases.js";
import {
  TEST_JWT_SECRET,
  startSecondInstance,
  startTestServer,
  type SecondInstance,
  type TestServer,
} from "../../../../test-support/http.js";
import { PASSWORD, bearer, tokenFor } from "./users.js";

const dialects = await testDialects();

describe.each(dialects)("%s open mode", (dialect) => {
  let t: TestServer;
  let other: SecondInstance;
  const apiKey = generateApiKey();
  const otherFetch = (path: string, init: RequestInit = {}) => fetch(`${other.baseUrl}/api${path}`, init);

  beforeAll(async () => {
    // no API key: a server started with one is never open (test/security/api-key-closes-open-mode.test.ts)
    t = await startTestServer(dialect);
    other = await startSecondInstance(t);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it(`${dialect}: without users everything is open and setup is needed`, async () => {
    expect(await (await t.fetch("/auth/setup")).json()).toEqual({ needs_setup: true });
    expect((await t.fetch("/pipelines")).status).toBe(200);
    expect((await t.fetch("/system/info")).status).toBe(200);
    expect((await t.fetch("/auth/users")).status).toBe(200);
    expect((await otherFetch("/pipelines")).status).toBe(200);
    // credentials that do not hold are ignored while the service is open
    expect((await t.fetch("/pipelines", { headers: bearer("garbage") })).status).toBe(200);
  });

  it(`${dialect}: the first user is always admin, and authentication switches on for every instance`, async () => {
    const created = await t.fetch("/auth/users", {
      method: "POST",
      json: { username: "first", password: PASSWORD, role: "viewer" },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ username: "first", role: "admin" });

    expect(await (await t.fetch("/auth/setup")).json()).toEqual({ needs_setup: false });
    expect((await t.fetch("/pipelines")).status).toBe(401);
    // the other instance caches "no users" for at most a second
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await otherFetch("/pipelines")).status).toBe(401);
    expect(await (await otherFetch("/auth/setup")).json()).toEqual({ needs_setup: false });
  });

  it(`${dialect}: afterwards anonymous user creation is refused, admins create users`, async () => {
    const anonymous = await t.fetch("/auth/users", {
      method: "POST",
      json: { username: "second", password: PASSWORD, role: "admin" },
    });
    expect(anonymous.status).toBe(401);
    const token = await tokenFor(t, "first");
    // a token from one instance works on the other (shared secret, shared users)
    const viaOther = await otherFetch("/auth/users", {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ username: "second", password: PASSWORD, role: "editor" }),
    });
    expect(viaOther.status).toBe(201);
    expect(await viaOther.json()).toMatchObject({ username: "second", role: "editor" });
  });

  it(`${dialect}: open routes stay open: login, logout, setup, health`, async () => {
    expect((await t.fetch("/auth/setup")).status).toBe(200);
    expect((await t.fetch("/auth/logout", { method: "POST" })).status).toBe(204);
    expect((await t.fetch("/health")).status).toBe(200);
    expect((await fetch(`${t.baseUrl}/health`)).status).toBe(200);
    expect(
      (await t.fetch("/auth/login", { method: "POST", json: { username: "first", password: PASSWORD } })).status,
    ).toBe(200);
  });

  it(`${dialect}: API keys keep working once users exist`, async () => {
    const sluice = await createSluice({
      database: t.db.url,
      logger: silentLogger,
      jwtSecret: TEST_JWT_SECRET,
      apiKeys: [apiKey],
    });
    const withKey = await startServer(sluice, { host: "127.0.0.1", port: 0 });
    try {
      const base = `http://127.0.0.1:${withKey.port}/api`;
      expect((await fetch(`${base}/auth/users`, { headers: { "x-api-key": apiKey } })).status).toBe(200);
      expect((await fetch(`${base}/auth/users`, { headers: bearer(apiKey) })).status).toBe(200);
    } finally {
      await withKey.close(1000);
      await sluice.close();
    }
  });
});
