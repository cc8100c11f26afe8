import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { MIGRATIONS_TABLE } from "../../src/store/knex/migrations/index.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

const dialects = await testDialects();
const opened: { db: TestDatabase; store: KnexStore }[] = [];
afterAll(async () => {
  for (const { db, store } of opened) {
    await store.close();
    await db.drop();
  }
});

const AT = "2026-11-29T00:00:00.000Z";
const LATER = "2026-11-29T01:00:00.000Z";

/** A pipeline row as a Sluice before migration 016 wrote it: its definition, no copy of its `depends_on`. */
const oldRow = (id: string, body: string) => ({
  id,
  name: id,
  description: "",
  schedule: "0 3 * * *",
  schedule_timezone: null,
  enabled: true,
  tags: "[]",
  node_count: 0,
  edge_count: 0,
  webhook_token: null,
  body,
  created_at: AT,
  updated_at: AT,
});

/*
 * Migration 016 copies each pipeline's `depends_on` into a column of its own, so that the scheduler's reload, the
 * dependency checks of a save and `GET /pipelines/{id}/deps` read no definitions. Rows written before it, or since by
 * an older Sluice still running beside a newer one, have no copy, or one made for another version of the row.
 */
describe.each(dialects)("%s: pipelines' depends_on column", (dialect) => {
  async function open(): Promise<{ db: TestDatabase; store: KnexStore }> {
    const db = await createTestDatabase(dialect);
    const store = await createKnexStore(db.url);
    opened.push({ db, store });
    return { db, store };
  }

  /** Takes the database back to before migration 016 (`dropColumns`), or to a start that died while filling. */
  async function undo016(store: KnexStore, dropColumns: boolean): Promise<void> {
    if (dialect === "sqlite") await store.knex.raw("drop index pipelines_refs_idx");
    if (dropColumns)
      for (const column of ["depends_on", "depends_on_at"])
        await store.knex.raw(`alter table pipelines drop column ${column}`);
    await store.knex(MIGRATIONS_TABLE).where({ name: "016-pipeline-depends-on" }).delete();
  }

  /** 205 rows (more than one step of the fill), each depending on the one before, one from before depends_on. */
  const ids = Array.from({ length: 205 }, (_, i) => `p-${String(i).padStart(4, "0")}`);
  const bodyOf = (i: number) => JSON.stringify(i === 0 ? { name: "old" } : { depends_on: [ids[i - 1]] });
  const expected = (id: string) => (id === ids[0] ? [] : [ids[ids.indexOf(id) - 1]]);

  for (const [what, dropColumns] of [
    ["a database migrated up to 015", true],
    ["a database whose start died while filling the copies (MySQL commits each step)", false],
  ] as const)
    it(`${what} gets every row's copy at the next start`, async () => {
      const { db, store } = await open();
      await undo016(store, dropColumns);
      for (let i = 0; i < ids.length; i += 50)
        await store.knex("pipelines").insert(ids.slice(i, i + 50).map((id, n) => oldRow(id, bodyOf(i + n))));
      const again = await createKnexStore(db.url);
      try {
        const copies = (await again.knex("pipelines").select("id", "depends_on", "depends_on_at")) as Record<
          string,
          string
        >[];
        expect(copies).toHaveLength(ids.length);
        for (const row of copies) {
          expect(JSON.parse(row.depends_on!)).toEqual(expected(row.id!));
          expect(row.depends_on_at).toBe(AT);
        }
        for (const ref of await again.pipelines.listScheduleRefs()) expect(ref.depends_on).toEqual(expected(ref.id));
      } finally {
        await again.close();
      }
    });

  it("a row an older Sluice wrote since its copy was made is read from its definition", async () => {
    const { store } = await open();
    await store.knex("pipelines").insert([oldRow("a", "{}"), oldRow("b", "{}"), oldRow("c", '{"depends_on":["a"]}')]);
    await store.knex("pipelines").whereIn("id", ["a", "b", "c"]).update({ depends_on: null });
    await store.knex("pipelines").where({ id: "c" }).update({ depends_on: '["a"]', depends_on_at: AT });
    // an older Sluice's update of c: its definition and updated_at, not the copy
    await store.knex("pipelines").where({ id: "c" }).update({ body: '{"depends_on":["b"]}', updated_at: LATER });
    expect((await store.pipelines.listDependencyRefs()).find((r) => r.id === "c")?.depends_on).toEqual(["b"]);
    expect((await store.pipelines.listScheduleRefs()).find((r) => r.id === "c")?.depends_on).toEqual(["b"]);
  });

  it("a definition that is not one reads as depending on nothing", async () => {
    const { store } = await open();
    await store.knex("pipelines").insert([oldRow("null", "null"), oldRow("list", "[1]"), oldRow("text", "{no")]);
    await store.knex("pipelines").update({ depends_on: null });
    const refs = await store.pipelines.listScheduleRefs();
    expect(refs.map((r) => [r.id, r.depends_on])).toEqual(
      expect.arrayContaining([
        ["null", []],
        ["list", []],
        ["text", []],
      ]),
    );
  });
});
