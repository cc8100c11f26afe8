import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { fillDependsOn } from "../../src/store/knex/migrations/016-pipeline-depends-on.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

const dialects = await testDialects();
const opened: { db: TestDatabase; store: KnexStore }[] = [];
afterAll(async () => {
  for (const { db, store } of opened) {
    await store.close();
    await db.drop();
  }
});

/*
 * Migration 016 copies each pipeline's `depends_on` into a column of its own, so that the scheduler's reload, the
 * dependency checks of a save and `GET /pipelines/{id}/deps` read no definitions. Rows written before it (or by an
 * older Sluice still running beside a newer one) have no copy.
 */
describe.each(dialects)("%s: pipelines' depends_on column", (dialect) => {
  /** `count` pipeline rows as a Sluice before migration 016 wrote them: no `depends_on` column value. */
  async function rowsWithoutCopy(count: number, body: (i: number) => object): Promise<KnexStore> {
    const db = await createTestDatabase(dialect);
    const store = await createKnexStore(db.url);
    opened.push({ db, store });
    const at = "2026-11-29T00:00:00.000Z";
    const rows = Array.from({ length: count }, (_, i) => ({
      id: `p-${String(i).padStart(4, "0")}`,
      name: `pipeline ${i}`,
      description: "",
      schedule: null,
      schedule_timezone: null,
      enabled: true,
      tags: "[]",
      node_count: 0,
      edge_count: 0,
      webhook_token: null,
      body: JSON.stringify(body(i)),
      created_at: at,
      updated_at: at,
    }));
    for (let i = 0; i < rows.length; i += 50) await store.knex("pipelines").insert(rows.slice(i, i + 50));
    return store;
  }

  it("rows without the copy are read from their definitions, and filled by the migration's step", async () => {
    // more rows than one step of the fill takes; one definition from before depends_on existed
    const store = await rowsWithoutCopy(205, (i) => (i === 0 ? { name: "old" } : { depends_on: [`p-${i - 1}`] }));
    const expected = (id: string) => (id === "p-0000" ? [] : [`p-${Number(id.slice(2)) - 1}`]);
    for (const ref of await store.pipelines.listDependencyRefs()) expect(ref.depends_on).toEqual(expected(ref.id));
    await fillDependsOn(store.knex);
    const copies = (await store.knex("pipelines").select("id", "depends_on")) as { id: string; depends_on: string }[];
    expect(copies).toHaveLength(205);
    for (const row of copies) expect(JSON.parse(row.depends_on)).toEqual(expected(row.id));
    for (const ref of await store.pipelines.listScheduleRefs()) expect(ref.depends_on).toEqual(expected(ref.id));
  });
});
