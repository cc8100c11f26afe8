import type { Knex } from "knex";
import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { CLAIMED_AT_INSERT_EPOCH } from "../../src/store/ports.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { nodeRunRow, pendingRun, T0 } from "../../../../test-support/run-fixtures.js";

const dialects = await testDialects();
const opened: { db: TestDatabase; store: KnexStore }[] = [];
afterAll(async () => {
  for (const { db, store } of opened) {
    await store.close();
    await db.drop();
  }
});

async function open(dialect: (typeof dialects)[number]): Promise<KnexStore> {
  const db = await createTestDatabase(dialect);
  const store = await createKnexStore(db.url);
  opened.push({ db, store });
  return store;
}

/** The SELECTs `fn` sends, as knex sends them (values included). */
async function selectsOf(store: KnexStore, fn: () => Promise<unknown>) {
  const sent: { sql: string; bindings: readonly Knex.RawBinding[] }[] = [];
  const listener = (q: { sql: string; bindings?: readonly Knex.RawBinding[] }) =>
    sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
  store.knex.on("query", listener);
  try {
    await fn();
  } finally {
    store.knex.off("query", listener);
  }
  return sent.filter((q) => /^select/i.test(q.sql));
}

/*
 * Migration 014: every event appended keeps each index of `run_events` up to date, and the one on `created_at` served
 * only the hourly retention, which now walks the primary key. On PostgreSQL `node_runs` keeps room on its pages, so
 * that the second write of a node run (its end, after the `pending` row of its run's start) is a heap-only update.
 */
describe("the event log's retention without an index on created_at", () => {
  it("SQLite: the index is gone and the purge reads only the ends of the primary key and points along it", async () => {
    const store = await open("sqlite");
    const indexes = (
      (await store.knex.raw("select name from sqlite_master where type = 'index' and tbl_name = 'run_events'")) as {
        name: string;
      }[]
    ).map((r) => r.name);
    expect(indexes).not.toContain("run_events_created_idx");
    expect(indexes).toContain("run_events_run_seq_idx");

    const events = Array.from({ length: 64 }, (_, i) => ({
      origin: "o",
      event: {
        type: "log" as const,
        run_id: "r",
        pipeline_id: "p",
        node_id: null,
        level: "info" as const,
        message: `${i}`,
        timestamp: T0,
      },
    }));
    await store.eventLog.append(events);
    const selects = await selectsOf(store, () => store.eventLog.prune(new Date(Date.now() + 60_000).toISOString()));
    for (const { sql, bindings } of selects) {
      const plan = ((await store.knex.raw(`explain query plan ${sql}`, bindings)) as { detail: string }[])
        .map((r) => r.detail)
        .join("\n");
      // the first row in rowid (seq) order, from an end or from a point: never a sort, never another index read whole
      // (SQLite asked for min and max together scans the (run_id, seq) index end to end)
      expect(plan).toMatch(/^(SCAN run_events|SEARCH run_events USING INTEGER PRIMARY KEY \(rowid>\?\))$/);
      expect(sql).toMatch(/limit \?/i);
    }
    // the two ends, then a few points of the bisection
    expect(selects.length).toBeGreaterThan(2);
    expect(await store.eventLog.ofRun("r", 0)).toEqual([]);
  });

  it.runIf(dialects.includes("postgres"))("PostgreSQL: node runs are updated in place on their page", async () => {
    const store = await open("postgres");
    const [table] = (
      await store.knex.raw<{ rows: { reloptions: string[] | null }[] }>(
        "select reloptions from pg_class where relname = 'node_runs' and relkind = 'r'",
      )
    ).rows;
    expect(table?.reloptions).toContain("fillfactor=50");

    // a run's node runs written pending, then ended: the ends are heap-only updates (no index written again)
    // queued already claimed by "o": its first claim's epoch
    await store.runs.insert([{ ...pendingRun("hot-1"), status: "running", owner: "o", started_at: T0 }]);
    const ids = Array.from({ length: 40 }, (_, i) => `hot-nr-${String(i).padStart(2, "0")}`);
    const claims = new Map([["hot-1", { owner: "o", epoch: CLAIMED_AT_INSERT_EPOCH }]]);
    const write = (status: "pending" | "success") =>
      store.runs.writeBatch({
        nodeRuns: ids.map((id) => nodeRunRow(id, "hot-1", { status })),
        logs: [],
        outputs: [],
        claims,
      });
    await write("pending");
    const before = await pageAndTupleOf(store, ids);
    await write("success");
    const after = await pageAndTupleOf(store, ids);
    expect((await store.runs.nodeRuns("hot-1")).map((nr) => nr.status)).toEqual(ids.map(() => "success"));
    // each new version on the page of the old one
    expect(after.map((p) => p.page)).toEqual(before.map((p) => p.page));
  });
});

/** The heap page each node run's current version lies on (`ctid`), in id order. */
async function pageAndTupleOf(store: KnexStore, ids: string[]) {
  const { rows } = await store.knex.raw<{ rows: { id: string; ctid: string }[] }>(
    "select id, ctid::text from node_runs where id = any(?) order by id",
    [ids],
  );
  return rows.map((r) => ({ id: r.id, page: r.ctid.replace(/^\((\d+),\d+\)$/, "$1") }));
}
