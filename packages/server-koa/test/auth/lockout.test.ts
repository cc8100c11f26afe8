import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, silentLogger, type Clock, type Sluice, type User } from "../../../core/src/index.js";
import { startServer, type RunningServer } from "../../src/index.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { TEST_JWT_SECRET } from "../../../../test-support/http.js";
import { PASSWORD, bearer, login, tokenFor, type ApiCaller } from "./users.js";

const dialects = await testDialects();

/** A clock the test moves forward by hand. */
function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => (offset += ms) };
}

interface Instance extends ApiCaller {
  close(): Promise<void>;
}

/** A server over an existing database, so a "restart" reopens the same data. */
async function serve(db: TestDatabase, clock: Clock): Promise<Instance> {
  const sluice: Sluice = await createSluice({
    database: db.url,
    logger: silentLogger,
    jwtSecret: TEST_JWT_SECRET,
    clock,
  });
  const server: RunningServer = await startServer(sluice, { host: "127.0.0.1", port: 0 });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  return {
    fetch(path: string, init: RequestInit & { json?: unknown } = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set("content-type", "application/json");
      return fetch(`${baseUrl}/api${path}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
    async close() {
      await server.close(1000);
      await sluice.close();
    },
  };
}

describe.each(dialects)("%s login lockout", (dialect) => {
  let db: TestDatabase;
  let t: Instance;
  const clock = movableClock();
  let adminToken: string;

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    t = await serve(db, clock);
    await t.fetch("/auth/users", { method: "POST", json: { username: "admin", password: PASSWORD } });
    adminToken = await tokenFor(t, "admin");
    for (const username of ["mallory", "trent", "eve"]) {
      await t.fetch("/auth/users", {
        method: "POST",
        headers: bearer(adminToken),
        json: { username, password: PASSWORD, role: "viewer" },
      });
    }
  });
  afterAll(async () => {
    await t?.close();
    await db?.drop();
  });

  it(`${dialect}: 5 failures lock the account: 429 with Retry-After, even with the right password`, async () => {
    for (let i = 0; i < 5; i++) expect((await login(t, "mallory", "wrong password")).status).toBe(401);
    const locked = await login(t, "mallory", PASSWORD);
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(await locked.json()).toHaveProperty("error");
  });

  it(`${dialect}: a burst of guesses sent at once is checked no more than 5 times`, async () => {
    const guesses = Array.from({ length: 40 }, (_, i) => `wrong guess ${i}`);
    const statuses = await Promise.all(guesses.map(async (guess) => (await login(t, "eve", guess)).status));
    const checked = statuses.filter((s) => s !== 429);
    expect(checked.length, statuses.join(",")).toBeGreaterThanOrEqual(1);
    expect(checked.length, statuses.join(",")).toBeLessThanOrEqual(5);
    expect(checked.every((s) => s === 401)).toBe(true);
    expect((await login(t, "eve", PASSWORD)).status).toBe(429);
  });

  it(`${dialect}: the lock holds across a restart on the same database`, async () => {
    await t.close();
    t = await serve(db, clock);
    expect((await login(t, "mallory", PASSWORD)).status).toBe(429);
  });

  it(`${dialect}: an admin reset unlocks the account`, async () => {
    const users = (await (await t.fetch("/auth/users", { headers: bearer(adminToken) })).json()) as User[];
    const mallory = users.find((u) => u.username === "mallory") as User;
    const reset = await t.fetch("/auth/admin-reset-password", {
      method: "POST",
      headers: bearer(adminToken),
      json: { user_id: mallory.id, new_password: "a fresh start" },
    });
    expect(reset.status).toBe(200);
    expect((await login(t, "mallory", "a fresh start")).status).toBe(200);
  });

  it(`${dialect}: the lock ends after 15 minutes`, async () => {
    for (let i = 0; i < 5; i++) await login(t, "trent", "wrong password");
    expect((await login(t, "trent", PASSWORD)).status).toBe(429);
    clock.advance(15 * 60 * 1000 + 1000);
    expect((await login(t, "trent", PASSWORD)).status).toBe(200);
  });

  it(`${dialect}: failures spread over more than 15 minutes do not lock`, async () => {
    for (let i = 0; i < 4; i++) await login(t, "trent", "wrong password");
    clock.advance(16 * 60 * 1000);
    expect((await login(t, "trent", "wrong password")).status).toBe(401);
    expect((await login(t, "trent", PASSWORD)).status).toBe(200);
  });

  it(`${dialect}: unknown usernames lock the same way (no hint which names exist)`, async () => {
    for (let i = 0; i < 5; i++) expect((await login(t, "ghost", "wrong password")).status).toBe(401);
    expect((await login(t, "ghost", "wrong password")).status).toBe(429);
  });

  it(`${dialect}: a token expires after 24 hours`, async () => {
    const token = await tokenFor(t, "admin");
    expect((await t.fetch("/auth/me", { headers: bearer(token) })).status).toBe(200);
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    expect((await t.fetch("/auth/me", { headers: bearer(token) })).status).toBe(401);
  });
});
