import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

const dialects = await testDialects();

describe.each(dialects)("%s webhook store contract", (dialect) => {
  let db: TestDatabase;
  let a: KnexStore;
  let b: KnexStore;
  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    a = await createKnexStore(db.url);
    b = await createKnexStore(db.url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  const t0 = new Date("2026-01-01T00:00:00Z");
  const at = (ms: number) => new Date(t0.getTime() + ms);

  it(`${dialect}: one trigger per pipeline per window, across connections, with the time left`, async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).webhooks.claimTrigger("p1", t0, 10_000)),
    );
    expect(results.filter((r) => r.accepted)).toHaveLength(1);
    const refused = await a.webhooks.claimTrigger("p1", at(4000), 10_000);
    expect(refused).toEqual({ accepted: false, retryAfterMs: 6000 });
    expect((await a.webhooks.claimTrigger("p2", at(4000), 10_000)).accepted).toBe(true);
    expect((await b.webhooks.claimTrigger("p1", at(10_000), 10_000)).accepted).toBe(true);
  });

  it(`${dialect}: runs are found by idempotency key within the window`, async () => {
    await a.knex("runs").insert({
      id: "r1",
      pipeline_id: "p1",
      status: "pending",
      trigger: "webhook",
      params: "{}",
      created_at: t0.toISOString(),
    });
    await a.webhooks.tagRun("r1", "p1:abc");
    expect(await b.webhooks.findRunByIdempotencyKey("p1:abc", at(-1000))).toEqual({
      id: "r1",
      pipeline_id: "p1",
      status: "pending",
    });
    expect(await b.webhooks.findRunByIdempotencyKey("p1:abc", at(1000))).toBeNull();
    expect(await b.webhooks.findRunByIdempotencyKey("p1:other", at(-1000))).toBeNull();
  });
});
