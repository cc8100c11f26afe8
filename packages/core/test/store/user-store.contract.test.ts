import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import type { LoginFailurePolicy, UserRecord } from "../../src/store/ports.js";
import { newId } from "../../src/ids.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

const dialects = await testDialects();

function user(overrides: Partial<UserRecord> = {}): UserRecord {
  const now = new Date().toISOString();
  return {
    id: newId(),
    username: `user-${newId().slice(-8)}`,
    role: "editor",
    password_hash: "scrypt$32768$8$1$c2FsdA==$aGFzaA==",
    password_changed_at: now,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

const MINUTE = 60_000;
function policy(at: number): LoginFailurePolicy {
  return {
    at: new Date(at).toISOString(),
    windowStart: new Date(at - 15 * MINUTE).toISOString(),
    threshold: 5,
    lockUntil: new Date(at + 15 * MINUTE).toISOString(),
  };
}

describe.each(dialects)("%s user and login-attempt store contract", (dialect) => {
  let db: TestDatabase;
  let store: KnexStore;

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    store = await createKnexStore(db.url);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it(`${dialect}: starts without users`, async () => {
    expect(await store.users.count()).toBe(0);
    expect(await store.users.list()).toEqual([]);
  });

  it(`${dialect}: inserts and reads a user back by id and by username`, async () => {
    const u = user({ username: "héllo ✓" });
    expect(await store.users.insert(u)).toBe(true);
    expect(await store.users.getById(u.id)).toEqual(u);
    expect(await store.users.getByUsername("héllo ✓")).toEqual(u);
    expect(await store.users.getById("nope")).toBeNull();
    expect(await store.users.getByUsername("nobody")).toBeNull();
  });

  it(`${dialect}: a taken username is refused, and usernames match exactly`, async () => {
    const u = user({ username: "Alice" });
    expect(await store.users.insert(u)).toBe(true);
    expect(await store.users.insert(user({ username: "Alice" }))).toBe(false);
    // case and accents are significant on every dialect (MySQL's default collation would fold them)
    expect(await store.users.getByUsername("alice")).toBeNull();
    expect(await store.users.insert(user({ username: "alice" }))).toBe(true);
    expect(await store.users.insert(user({ username: "josé" }))).toBe(true);
    expect(await store.users.insert(user({ username: "jose" }))).toBe(true);
    expect((await store.users.getByUsername("jose"))?.username).toBe("jose");
  });

  it(`${dialect}: lists oldest first and counts`, async () => {
    const list = await store.users.list();
    expect(list.length).toBe(await store.users.count());
    const created = list.map((u) => u.created_at);
    expect([...created].sort()).toEqual(created);
  });

  it(`${dialect}: updates the password hash and its change time`, async () => {
    const u = user();
    await store.users.insert(u);
    const changedAt = new Date(Date.now() + 5000).toISOString();
    expect(await store.users.updatePassword(u.id, "scrypt$new", changedAt)).toBe(true);
    const read = await store.users.getById(u.id);
    expect(read?.password_hash).toBe("scrypt$new");
    expect(read?.password_changed_at).toBe(changedAt);
    expect(await store.users.updatePassword("missing", "x", changedAt)).toBe(false);
  });

  it(`${dialect}: counts failures and locks at the threshold`, async () => {
    const t0 = Date.parse("2026-01-01T00:00:00.000Z");
    for (let i = 1; i <= 4; i++) {
      const a = await store.loginAttempts.recordFailure("bob", policy(t0 + i * 1000));
      expect(a.failures).toBe(i);
      expect(a.locked_until).toBeNull();
    }
    const fifth = await store.loginAttempts.recordFailure("bob", policy(t0 + 5000));
    expect(fifth.failures).toBe(5);
    expect(fifth.locked_until).toBe(policy(t0 + 5000).lockUntil);
    expect(await store.loginAttempts.get("bob")).toEqual(fifth);
    expect(await store.loginAttempts.get("Bob")).toBeNull();
  });

  it(`${dialect}: failures outside the window start a new count`, async () => {
    const t0 = Date.parse("2026-01-02T00:00:00.000Z");
    await store.loginAttempts.recordFailure("carol", policy(t0));
    await store.loginAttempts.recordFailure("carol", policy(t0 + MINUTE));
    const later = await store.loginAttempts.recordFailure("carol", policy(t0 + 16 * MINUTE));
    expect(later).toEqual({
      username: "carol",
      failures: 1,
      first_failure_at: policy(t0 + 16 * MINUTE).at,
      locked_until: null,
    });
  });

  it(`${dialect}: concurrent failures are all counted`, async () => {
    const at = Date.parse("2026-01-03T00:00:00.000Z");
    await Promise.all(Array.from({ length: 8 }, () => store.loginAttempts.recordFailure("dave", policy(at))));
    const dave = await store.loginAttempts.get("dave");
    expect(dave?.failures).toBe(8);
    expect(dave?.locked_until).toBe(policy(at).lockUntil);
  });

  it(`${dialect}: prune drops finished windows but keeps current ones and active locks`, async () => {
    const t0 = Date.parse("2026-02-01T00:00:00.000Z");
    await store.loginAttempts.recordFailure("old", policy(t0));
    await store.loginAttempts.recordFailure("recent", policy(t0 + 19 * MINUTE));
    // window opened at t0+1m, locked at t0+14m until t0+29m
    await store.loginAttempts.recordFailure("locked", policy(t0 + MINUTE));
    for (let i = 0; i < 4; i++) await store.loginAttempts.recordFailure("locked", policy(t0 + 14 * MINUTE));
    const at = t0 + 20 * MINUTE;
    const pruned = await store.loginAttempts.prune(
      new Date(at - 15 * MINUTE).toISOString(),
      new Date(at).toISOString(),
    );
    expect(pruned).toBeGreaterThanOrEqual(1);
    expect(await store.loginAttempts.get("old")).toBeNull();
    expect((await store.loginAttempts.get("recent"))?.failures).toBe(1);
    expect((await store.loginAttempts.get("locked"))?.locked_until).toBe(policy(t0 + 14 * MINUTE).lockUntil);
    for (const name of ["recent", "locked"]) await store.loginAttempts.clear(name);
  });

  it(`${dialect}: clear forgets failures and the lock`, async () => {
    await store.loginAttempts.clear("bob");
    expect(await store.loginAttempts.get("bob")).toBeNull();
    await store.loginAttempts.clear("never-failed");
  });
});
