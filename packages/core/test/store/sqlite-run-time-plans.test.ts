import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { queriesSent } from "../../../../test-support/queries-sent.js";

let db: TestDatabase | undefined;
let store: KnexStore | undefined;
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

/** The SQLite plans of the SELECTs `fn` sends (captured as knex sends them, values included). */
async function plansOf(s: KnexStore, fn: () => Promise<unknown>): Promise<string[]> {
  const sent = await queriesSent(s.knex, fn);
  const plans: string[] = [];
  for (const { sql, bindings } of sent.filter((q) => /^select/i.test(q.sql))) {
    const rows = (await s.knex.raw(`explain query plan ${sql}`, bindings)) as { detail: string }[];
    plans.push(rows.map((r) => r.detail).join("\n"));
  }
  return plans;
}

/*
 * Every run written keeps each index of `runs` up to date, so an index no query needs costs every trigger (migration
 * 013 drops the one on `created_at` alone). What ordered or filtered runs by time must still find them in an index:
 * with a year of runs, a scan of `runs` holds the server's thread for as long as it reads them.
 */
describe("SQLite: runs by time, without an index of their own on created_at", () => {
  it("the dashboard's recent runs and daily counts, and the retention purge, read runs from an index", async () => {
    db = await createTestDatabase("sqlite");
    store = await createKnexStore(db.url);
    const indexes = (await store.knex.raw("select name from sqlite_master where type = 'index' and tbl_name = 'runs'"))
      .map((r: { name: string }) => r.name)
      .sort();
    expect(indexes).not.toContain("runs_created_idx");
    expect(indexes).toContain("runs_created_status_idx");

    const recent = await plansOf(store, () => store!.insights.recentRuns(20));
    const daily = await plansOf(store, () => store!.insights.dailyCounts("2026-01-01T00:00:00.000Z"));
    const purge = await plansOf(store, () => store!.system.purgeRunsBefore("2026-01-01T00:00:00.000Z"));
    for (const plan of [...recent, ...daily, ...purge]) expect(plan).not.toMatch(/SCAN r(uns)?\b(?! USING)/);
    // newest first, walking the index from its end: the limit stops it
    expect(recent.join("\n")).toMatch(/USING (COVERING )?INDEX runs_created_status_idx/);
    expect(daily.join("\n")).toMatch(/USING COVERING INDEX runs_created_status_idx \(created_at>\?\)/);
    // finished runs only: the claim-order index (status, created_at, id) has both
    expect(purge.join("\n")).toMatch(/USING COVERING INDEX runs_status_created_id_idx \(status=\? AND created_at<\?\)/);
  });
});
