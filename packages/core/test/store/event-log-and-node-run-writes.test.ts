import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { CLAIMED_AT_INSERT_EPOCH, eventLogEntry } from "../../src/store/ports.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { queriesSent } from "../../../../test-support/queries-sent.js";
import { nodeRunRow, pendingRun, T0 } from "../../../../test-support/run-fixtures.js";
import type { NodeRun } from "../../src/model/run.js";

const dialects = await testDialects();
/** Node runs of one run, written pending, running, then ended: more than the first pages hold. */
const NODE_RUNS = 200;
/** How many end as heap-only tuples at least: 163 with half of each page free, 23 without (PostgreSQL 15). */
const HEAP_ONLY_AT_LEAST = 150;
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
const selectsOf = async (store: KnexStore, fn: () => Promise<unknown>) =>
  (await queriesSent(store.knex, fn)).filter((q) => /^select/i.test(q.sql));

/** An event row as the log holds it, with the number and time given. */
const eventRow = (seq: number, runId: string, createdAt: string) => ({
  seq,
  run_id: runId,
  origin: "o",
  body: JSON.stringify({
    type: "log",
    run_id: runId,
    pipeline_id: "p",
    node_id: null,
    level: "info",
    message: createdAt,
    timestamp: createdAt,
  }),
  created_at: createdAt,
});

/*
 * Migration 014: every event appended keeps each index of `run_events` up to date, and the one on `created_at` served
 * only the retention (every minute, events older than an hour), which now bisects along the primary key and deletes
 * only old events. On PostgreSQL `node_runs` keeps room on its pages, so that the later writes of a node run (as it
 * starts and ends, after the `pending` row of its run's start) are mostly heap-only updates.
 */
describe.each(dialects)("%s: the event log's retention walks its numbers", (dialect) => {
  it("an event stamped before another but numbered after it (its batch waited for a lock) takes no newer one with it", async () => {
    const store = await open(dialect);
    const at = (s: string) => `2026-01-01T00:00:${s}Z`;
    for (const row of [
      eventRow(1, "oo", at("09.000")),
      eventRow(2, "oo", at("10.480")), // not old
      eventRow(3, "oo", at("10.078")), // old, numbered after a newer one
      eventRow(4, "oo", at("11.000")), // not old
    ])
      await store.knex("run_events").insert(row);
    expect(await store.eventLog.prune(at("10.277"))).toBe(2);
    expect((await store.eventLog.ofRun("oo", 0)).map((e) => e.seq)).toEqual([2, 4]);
  });

  it("a gap of millions in the numbers is jumped over, not deleted through range by range", async () => {
    const store = await open(dialect);
    await store.knex("run_events").insert(eventRow(1, "gap", "2026-01-01T00:00:00.000Z"));
    await store.knex("run_events").insert(eventRow(50_000_001, "gap", "2026-01-01T00:00:01.000Z"));
    let deleted = 0;
    const sent = await queriesSent(store.knex, async () => {
      deleted = await store.eventLog.prune("2026-01-02T00:00:00.000Z");
    });
    expect(deleted).toBe(2);
    expect(await store.eventLog.ofRun("gap", 0)).toEqual([]);
    expect(sent.filter((q) => /^delete/i.test(q.sql)).length).toBeLessThanOrEqual(2);
  });
});

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

    const events = Array.from({ length: 64 }, (_, i) =>
      eventLogEntry("o", {
        type: "log",
        run_id: "r",
        pipeline_id: "p",
        node_id: null,
        level: "info",
        message: `${i}`,
        timestamp: T0,
      }),
    );
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
      // a condition on created_at would make the scan read every old row before the first that is not
      expect(sql).not.toMatch(/where.*created_at/i);
    }
    // the two ends, then a few points of the bisection (64 events: log2 of them, and a read after the deletes)
    expect(selects.length).toBeGreaterThan(2);
    expect(selects.length).toBeLessThanOrEqual(2 + 7 + 1);
    expect(await store.eventLog.ofRun("r", 0)).toEqual([]);
  });

  it.runIf(dialects.includes("postgres"))("PostgreSQL: most writes of a node run are heap-only updates", async () => {
    const store = await open("postgres");
    // as a run writes its node runs: pending at its start, then running, then ended (the row grows at each step)
    await store.runs.insert([{ ...pendingRun("hot-1"), status: "running", owner: "o", started_at: T0 }]);
    const ids = Array.from({ length: NODE_RUNS }, (_, i) => `01a2-hot-nr-${String(i).padStart(3, "0")}`);
    const claims = new Map([["hot-1", { owner: "o", epoch: CLAIMED_AT_INSERT_EPOCH }]]);
    const write = (over: Partial<NodeRun>) =>
      store.runs.writeBatch({
        nodeRuns: ids.map((id, i) => nodeRunRow(id, "hot-1", { node_id: `node-${i}`, ...over })),
        logs: [],
        outputs: [],
        claims,
      });
    await write({ status: "pending", started_at: null });
    await write({ status: "running", started_at: "2026-01-01T00:00:01.000Z" });
    await write({
      status: "success",
      started_at: "2026-01-01T00:00:01.000Z",
      finished_at: "2026-01-01T00:00:01.250Z",
      row_count: 12_345,
      duration_ms: 250,
    });
    expect((await store.runs.nodeRuns("hot-1")).map((nr) => nr.status)).toEqual(ids.map(() => "success"));
    // each node run's current version: heap-only when the update that wrote it left the indexes alone
    const heapOnly = await heapOnlyRows(store, "node_runs", "hot-1");
    expect(heapOnly.length).toBe(NODE_RUNS);
    expect(heapOnly.filter(Boolean).length).toBeGreaterThanOrEqual(HEAP_ONLY_AT_LEAST);
  });
});

/** Whether each current row of `table` of run `runId` is a heap-only tuple (PostgreSQL's pageinspect). */
async function heapOnlyRows(store: KnexStore, table: "node_runs", runId: string): Promise<boolean[]> {
  await store.knex.raw("create extension if not exists pageinspect");
  const { rows } = await store.knex.raw<{ rows: { heap_only: boolean }[] }>(
    `select (p.t_infomask2 & 32768) <> 0 as heap_only from ${table} r, ` +
      `lateral heap_page_items(get_raw_page('${table}', (r.ctid::text::point)[0]::int)) p ` +
      `where r.run_id = ? and p.lp = (r.ctid::text::point)[1]::int order by r.id`,
    [runId],
  );
  return rows.map((r) => r.heap_only);
}
