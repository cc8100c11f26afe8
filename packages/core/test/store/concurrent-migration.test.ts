import knexFactory from "knex";
import { afterAll, describe, expect, it } from "vitest";
import { DIALECTS } from "../../src/store/knex/dialects/index.js";
import { parseDatabaseUrl } from "../../src/store/database-url.js";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

const dialects = await testDialects();
const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

/*
 * A start gives up on a held migration lock after a bounded wait (a crashed migration leaves it set); instances that
 * really migrate a fresh database at the same moment must still all come up: the later ones wait for the first.
 */
describe("instances migrating one fresh database at once", () => {
  it.each(dialects)(
    "%s: six stores opened together all migrate and open",
    async (dialect) => {
      const db = await createTestDatabase(dialect);
      dbs.push(db);
      const started = Date.now();
      const stores: KnexStore[] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createKnexStore(db.url)));
      console.log(`${dialect}: six concurrent starts migrated and opened in ${Date.now() - started} ms`);
      try {
        const rows = (await stores[0]!.knex("sluice_migrations").select("name")) as { name: string }[];
        expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
        expect(rows.map((r) => r.name)).toContain("001-initial-schema");
        expect(await stores[3]!.knex("sluice_migrations_lock").select("is_locked")).toEqual([{ is_locked: 0 }]);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    },
    150_000,
  );
});

/*
 * Before the migration mutex, two starts could both create knex's lock row; knex then counts two rows unlocked and
 * reports its lock "already locked" for ever, so no start could open the database. Such a database opens now.
 */
describe("a database whose migration lock table holds two rows", () => {
  it.each(dialects)(
    "%s: opens, migrates and leaves one unlocked row",
    async (dialect) => {
      const db = await createTestDatabase(dialect);
      dbs.push(db);
      const parsed = parseDatabaseUrl(db.url);
      const raw = knexFactory(DIALECTS[parsed.dialect].knexConfig(parsed.filePath ?? parsed.url ?? ""));
      try {
        await raw.schema.createTable("sluice_migrations", (t) => {
          t.increments("id").primary();
          t.string("name");
          t.integer("batch");
          t.timestamp("migration_time");
        });
        await raw.schema.createTable("sluice_migrations_lock", (t) => {
          t.increments("index").primary();
          t.integer("is_locked");
        });
        await raw("sluice_migrations_lock").insert([{ is_locked: 0 }, { is_locked: 0 }]);
      } finally {
        await raw.destroy();
      }
      const store = await createKnexStore(db.url);
      try {
        expect((await store.knex("sluice_migrations").select("name")).map((r) => r.name)).toContain(
          "001-initial-schema",
        );
        expect(await store.knex("sluice_migrations_lock").select("is_locked")).toEqual([{ is_locked: 0 }]);
      } finally {
        await store.close();
      }
    },
    90_000,
  );
});
