import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import type { Pipeline } from "../../src/model/pipeline.js";
import { newId } from "../../src/ids.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { queriesSent } from "../../../../test-support/queries-sent.js";

const dialects = await testDialects();

function pipeline(overrides: Partial<Pipeline> = {}): Pipeline {
  const now = new Date().toISOString();
  return {
    id: newId(),
    name: "orders",
    description: "héllo ✓ — unicode survives",
    schedule: "0 * * * *",
    schedule_timezone: "Europe/Berlin",
    enabled: true,
    tags: ["a", "b"],
    params: { region: "eu" },
    nodes: [
      {
        id: "src",
        type: "source_db",
        name: "Source",
        config: { conn_id: "pg", query: "select 1" },
        position: { x: 1, y: 2 },
      },
      { id: "out", type: "sink_file", config: { path: "out.csv", format: "csv" } },
    ],
    edges: [{ from: "src", to: "out" }],
    hooks: [],
    depends_on: [],
    sla_deadline: "06:30",
    sla_timezone: "UTC",
    webhook_token: "tok",
    parallelism: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

const note = (message: string) => ({ version_id: newId(), message, created_at: new Date().toISOString() });

describe.each(dialects)("%s pipeline store contract", (dialect) => {
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

  it(`${dialect}: inserts and reads back a pipeline unchanged`, async () => {
    const p = pipeline();
    await store.pipelines.insert(p, note("created"));
    expect(await store.pipelines.get(p.id)).toEqual(p);
  });

  it(`${dialect}: the change marker moves on insert, update and delete, and only then`, async () => {
    const before = await store.pipelines.changeMarker();
    expect(await store.pipelines.changeMarker()).toBe(before);
    const p = pipeline({ name: "marked" });
    await store.pipelines.insert(p, note("created"));
    const inserted = await store.pipelines.changeMarker();
    expect(inserted).not.toBe(before);
    await store.pipelines.update({ ...p, enabled: false }, note("disabled"));
    const updated = await store.pipelines.changeMarker();
    expect(updated).not.toBe(inserted);
    await store.pipelines.delete(p.id);
    const deleted = await store.pipelines.changeMarker();
    expect(deleted).not.toBe(updated);
    expect(await store.pipelines.changeMarker()).toBe(deleted);
  });

  it(`${dialect}: get of an unknown id is null`, async () => {
    expect(await store.pipelines.get("does-not-exist")).toBeNull();
  });

  it(`${dialect}: lists summaries newest first, with counts and without nodes`, async () => {
    const older = pipeline({ name: "older", created_at: "2020-01-01T00:00:00.000Z" });
    const newer = pipeline({ name: "newer", created_at: "2030-01-01T00:00:00.000Z" });
    await store.pipelines.insert(older, note("created"));
    await store.pipelines.insert(newer, note("created"));
    const { items, total } = await store.pipelines.list();
    expect(total).toBe(items.length);
    expect(items[0]?.name).toBe("newer");
    expect(items.at(-1)?.name).toBe("older");
    const summary = items.find((i) => i.id === newer.id);
    expect(summary).toEqual({
      id: newer.id,
      name: "newer",
      description: newer.description,
      schedule: "0 * * * *",
      enabled: true,
      tags: ["a", "b"],
      node_count: 2,
      edge_count: 1,
      created_at: newer.created_at,
      updated_at: newer.updated_at,
    });
  });

  it(`${dialect}: paginates with limit and offset`, async () => {
    const { total } = await store.pipelines.list();
    const page1 = await store.pipelines.list({ page: 1, per_page: 2 });
    const page2 = await store.pipelines.list({ page: 2, per_page: 2 });
    expect(page1.total).toBe(total);
    expect(page1.items).toHaveLength(Math.min(2, total));
    expect(page2.items.map((i) => i.id)).not.toContain(page1.items[0]?.id);
  });

  it(`${dialect}: update replaces the row and adds a version; versions are newest first`, async () => {
    const p = pipeline({ name: "versioned" });
    await store.pipelines.insert(p, note("created"));
    const changed = { ...p, name: "versioned 2", enabled: false, updated_at: new Date().toISOString() };
    expect(await store.pipelines.update(changed, note("updated name"))).toBe(true);
    expect(await store.pipelines.get(p.id)).toEqual(changed);
    const versions = await store.pipelines.listVersions(p.id);
    expect(versions.map((v) => [v.version, v.message])).toEqual([
      [2, "updated name"],
      [1, "created"],
    ]);
    const first = await store.pipelines.getVersion(p.id, versions[1]!.version_id);
    expect(first?.snapshot.name).toBe("versioned");
    expect(await store.pipelines.getVersion(p.id, "nope")).toBeNull();
  });

  it(`${dialect}: update of a missing pipeline reports false and writes nothing`, async () => {
    const ghost = pipeline();
    expect(await store.pipelines.update(ghost, note("x"))).toBe(false);
    expect(await store.pipelines.listVersions(ghost.id)).toEqual([]);
  });

  it(`${dialect}: delete removes the pipeline and its versions`, async () => {
    const p = pipeline();
    await store.pipelines.insert(p, note("created"));
    expect(await store.pipelines.delete(p.id)).toBe(true);
    expect(await store.pipelines.get(p.id)).toBeNull();
    expect(await store.pipelines.listVersions(p.id)).toEqual([]);
    expect(await store.pipelines.delete(p.id)).toBe(false);
  });

  it(`${dialect}: dependency refs and existing ids`, async () => {
    const a = pipeline({ name: "dep-a" });
    const b = pipeline({ name: "dep-b", depends_on: [a.id] });
    await store.pipelines.insert(a, note("created"));
    await store.pipelines.insert(b, note("created"));
    const refs = await store.pipelines.listDependencyRefs();
    expect(refs.find((r) => r.id === b.id)?.depends_on).toEqual([a.id]);
    expect(await store.pipelines.existingIds([a.id, "missing"])).toEqual(new Set([a.id]));
  });

  it(`${dialect}: schedule refs carry schedule, zone and enabled of every pipeline`, async () => {
    const zoned = pipeline({ name: "zoned", schedule: "30 2 * * 1-5", schedule_timezone: "America/New_York" });
    const manual = pipeline({ name: "manual", schedule: null, schedule_timezone: null, enabled: false });
    await store.pipelines.insert(zoned, note("created"));
    await store.pipelines.insert(manual, note("created"));
    const refs = await store.pipelines.listScheduleRefs();
    // newest first, as the listing (the order catch-up queues runs in)
    expect(refs.map((r) => r.id)).toEqual((await store.pipelines.list()).items.map((p) => p.id));
    expect(refs.find((r) => r.id === zoned.id)).toEqual({
      id: zoned.id,
      name: "zoned",
      schedule: "30 2 * * 1-5",
      schedule_timezone: "America/New_York",
      enabled: true,
      depends_on: [],
      updated_at: zoned.updated_at,
    });
    expect(refs.find((r) => r.id === manual.id)).toEqual({
      id: manual.id,
      name: "manual",
      schedule: null,
      schedule_timezone: null,
      enabled: false,
      depends_on: [],
      updated_at: manual.updated_at,
    });
  });

  it(`${dialect}: dependency and schedule refs follow an update of depends_on`, async () => {
    const a = pipeline({ name: "upstream-a" });
    const b = pipeline({ name: "upstream-b" });
    const c = pipeline({ name: "downstream", depends_on: [a.id] });
    for (const p of [a, b, c]) await store.pipelines.insert(p, note("created"));
    const later = new Date(Date.parse(c.updated_at) + 1000).toISOString();
    await store.pipelines.update({ ...c, depends_on: [b.id, a.id], updated_at: later }, note("updated depends_on"));
    expect((await store.pipelines.listDependencyRefs()).find((r) => r.id === c.id)).toEqual({
      id: c.id,
      name: "downstream",
      depends_on: [b.id, a.id],
    });
    expect((await store.pipelines.listScheduleRefs()).find((r) => r.id === c.id)).toMatchObject({
      depends_on: [b.id, a.id],
      updated_at: later,
    });
  });

  it(`${dialect}: the refs are read without any pipeline's definition`, async () => {
    await store.pipelines.insert(pipeline({ name: "refs" }), note("created"));
    const sent = await queriesSent(store.knex, async () => {
      await store.pipelines.listScheduleRefs();
      await store.pipelines.listDependencyRefs();
    });
    expect(sent.length).toBeGreaterThan(0);
    for (const { sql } of sent) expect(sql).not.toMatch(/select \*|\.\*|\bbody\b/i);
  });

  it(`${dialect}: count and database size are measured`, async () => {
    expect(await store.pipelines.count()).toBe((await store.pipelines.list()).total);
    expect(await store.system.sizeBytes()).toBeGreaterThan(0);
    expect(await store.system.activeRunCount()).toBe(0);
  });

  it(`${dialect}: reopening the database keeps data and does not re-run migrations`, async () => {
    const p = pipeline({ name: "persisted" });
    await store.pipelines.insert(p, note("created"));
    const again = await createKnexStore(db.url);
    try {
      expect((await again.pipelines.get(p.id))?.name).toBe("persisted");
    } finally {
      await again.close();
    }
  });

  it(`${dialect}: refuses a database migrated by a newer version`, async () => {
    await store
      .knex("sluice_migrations")
      .insert({ name: "999-from-the-future", batch: 99, migration_time: new Date() });
    await expect(createKnexStore(db.url)).rejects.toThrow(/newer Sluice/);
    await store.knex("sluice_migrations").where({ name: "999-from-the-future" }).delete();
  });
});
