import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { runToRow } from "../../src/store/knex/run-state-rows.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { pendingRun } from "../../../../test-support/run-fixtures.js";

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

  it(`${dialect}: a slot and its run are recorded together; racing or retried claims add no second run`, async () => {
    const slot = "2026-01-01T08:00:00.000Z";
    const run = (id: string) => pendingRun(id, { pipeline_id: "p3", trigger: "schedule" });
    // two instances, or an attempt retried after its answer was lost: the same slot, each with its own run
    const claims = await Promise.all([
      a.schedulerState.claimSlot("p3", slot, [run("slot-run-a")]),
      b.schedulerState.claimSlot("p3", slot, [run("slot-run-b")]),
      a.schedulerState.claimSlot("p3", slot, [run("slot-run-c")]),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const rows = await a.knex("runs").where({ pipeline_id: "p3" }).select("id", "schedule_slot");
    expect(rows).toEqual([{ id: `slot-run-${"abc"[claims.indexOf(true)]}`, schedule_slot: slot }]);
    // a run for a slot already recorded is refused by the database too (unique per pipeline and slot)
    await expect(a.knex("runs").insert({ ...runToRow(run("slot-run-d")), schedule_slot: slot })).rejects.toThrow();
    expect(Number((await a.knex("runs").where({ pipeline_id: "p3" }).count({ n: "*" }))[0]?.n)).toBe(1);
  });

  it(`${dialect}: an SLA miss is reported once per date`, async () => {
    expect(await a.schedulerState.claimSlaDate("p2", "2026-01-01")).toBe(true);
    expect(await b.schedulerState.claimSlaDate("p2", "2026-01-01")).toBe(false);
    expect(await b.schedulerState.claimSlaDate("p2", "2026-01-02")).toBe(true);
    expect(await a.schedulerState.get("missing")).toBeNull();
  });
});
