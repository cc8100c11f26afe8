import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

const dialects = await testDialects();

describe.each(dialects)("%s lease and scheduler-state contract", (dialect) => {
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

  it(`${dialect}: one holder at a time; the holder renews; an expired lease can be taken`, async () => {
    expect(await a.leases.acquire("scheduler", "A", 10_000, t0)).toBe(true);
    expect(await b.leases.acquire("scheduler", "B", 10_000, at(1000))).toBe(false);
    expect(await a.leases.acquire("scheduler", "A", 10_000, at(5000))).toBe(true);
    expect(await b.leases.holder("scheduler", at(6000))).toBe("A");
    expect(await b.leases.acquire("scheduler", "B", 10_000, at(16_000))).toBe(true);
    expect(await a.leases.acquire("scheduler", "A", 10_000, at(17_000))).toBe(false);
    await b.leases.release("scheduler", "B");
    expect(await a.leases.holder("scheduler", at(17_000))).toBeNull();
  });

  it(`${dialect}: concurrent acquisitions from two connections give exactly one holder`, async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).leases.acquire("race", `owner-${i}`, 60_000, t0)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it(`${dialect}: a slot is claimed once, and earlier slots cannot be claimed after later ones`, async () => {
    const slot = "2026-01-01T06:00:00.000Z";
    const claims = await Promise.all([a.schedulerState.claimSlot("p1", slot), b.schedulerState.claimSlot("p1", slot)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await a.schedulerState.claimSlot("p1", "2026-01-01T05:00:00.000Z")).toBe(false);
    expect(await a.schedulerState.claimSlot("p1", "2026-01-01T07:00:00.000Z")).toBe(true);
    expect((await b.schedulerState.get("p1"))?.last_slot_at).toBe("2026-01-01T07:00:00.000Z");
  });

  it(`${dialect}: an SLA miss is reported once per date`, async () => {
    expect(await a.schedulerState.claimSlaDate("p2", "2026-01-01")).toBe(true);
    expect(await b.schedulerState.claimSlaDate("p2", "2026-01-01")).toBe(false);
    expect(await b.schedulerState.claimSlaDate("p2", "2026-01-02")).toBe(true);
    expect(await a.schedulerState.get("missing")).toBeNull();
  });
});
