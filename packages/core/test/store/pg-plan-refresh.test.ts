import { afterEach, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { PgPlanRefresh } from "../../src/store/knex/pg-plan-refresh.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { pollUntil } from "../../../../test-support/poll.js";
import { pendingRun, T0 } from "../../../../test-support/run-fixtures.js";

const postgres = (await testDialects()).includes("postgres");

/*
 * PostgreSQL plans a named statement once per connection and keeps the plan until the tables' statistics change, so
 * plans made while `runs` held a few rows went on reading it whole as it grew (docs/performance.md). What must hold:
 * the process analyzes `runs` and `node_runs` itself once it has written 256 runs and at every doubling of that, one
 * ANALYZE at a time, and stops once the tables are large (131,072 runs written, or `runs` last analyzed that large).
 */
describe.runIf(postgres)("postgres: the hot statements' plans are made anew as the tables grow", () => {
  let db: TestDatabase | undefined;
  let store: KnexStore | undefined;
  afterEach(async () => {
    await store?.close();
    await db?.drop();
    store = undefined;
    db = undefined;
  });

  const open = async () => {
    db = await createTestDatabase("postgres");
    store = await createKnexStore(db.url);
    return store;
  };
  /** How often `table` was analyzed by hand (not by autovacuum), as PostgreSQL counts it. */
  const analyzed = async (s: KnexStore, table: string) => {
    const { rows } = (await s.knex.raw("select analyze_count from pg_stat_user_tables where relname = ?", [table])) as {
      rows: { analyze_count: string }[];
    };
    return Number(rows[0]?.analyze_count);
  };

  it("analyzes runs and node_runs at 256 runs written, at every doubling after, and not past 131,072", async () => {
    const s = await open();
    const refresh = new PgPlanRefresh(s.knex);
    const step = async (runs: number) => {
      refresh.runsWritten(runs);
      await refresh.settled();
      return [await analyzed(s, "runs"), await analyzed(s, "node_runs")];
    };
    expect(await step(255)).toEqual([0, 0]);
    expect(await step(1)).toEqual([1, 1]); // 256
    expect(await step(255)).toEqual([1, 1]); // 511
    expect(await step(1)).toEqual([2, 2]); // 512
    // far past several doublings at once: one ANALYZE, and the next at the doubling after where it stands
    expect(await step(40_000)).toEqual([3, 3]); // 40,512: next at 65,536
    expect(await step(25_000)).toEqual([3, 3]); // 65,512
    expect(await step(24)).toEqual([4, 4]); // 65,536: next at 131,072
    expect(await step(65_536)).toEqual([5, 5]); // 131,072, the last
    expect(await step(1_000_000)).toEqual([5, 5]);
  });

  it("runs one ANALYZE at a time, and one skipped meanwhile follows at the next write", async () => {
    const s = await open();
    const refresh = new PgPlanRefresh(s.knex);
    refresh.runsWritten(256);
    refresh.runsWritten(1000); // a doubling passed while the first is under way: not a second one beside it
    await refresh.settled();
    expect(await analyzed(s, "runs")).toBe(1);
    refresh.runsWritten(1);
    await refresh.settled();
    expect(await analyzed(s, "runs")).toBe(2);
  });

  it("leaves a database alone whose runs were last analyzed at 131,072 rows or more", async () => {
    const s = await open();
    await s.knex.raw(
      `insert into runs (id, pipeline_id, status, trigger, params, created_at)
       select 'old-' || g, 'old-p', 'success', 'manual', '{}', '${T0}' from generate_series(1, 131072) as g`,
    );
    await s.knex.raw("analyze runs");
    const refresh = new PgPlanRefresh(s.knex);
    refresh.runsWritten(256);
    await refresh.settled();
    refresh.runsWritten(100_000);
    await refresh.settled();
    expect(await analyzed(s, "runs")).toBe(1); // the test's own
    expect(await analyzed(s, "node_runs")).toBe(0);
  });

  it("the store counts the runs it writes: a trigger's batch and an insert", async () => {
    const s = await open();
    const runs = Array.from({ length: 256 }, (_, i) => pendingRun(`pr-${i}`, { pipeline_id: "pr-p", created_at: T0 }));
    await s.runs.insert(runs.slice(0, 200));
    await s.runs.writeBatch({
      runs: runs.slice(200),
      nodeRuns: [],
      logs: [],
      outputs: [],
      transitions: [],
      events: [],
    });
    expect(
      await pollUntil(async () => ((await analyzed(s, "runs")) >= 1 ? true : undefined), { timeoutMs: 10_000 }),
    ).toBe(true);
    expect(await analyzed(s, "node_runs")).toBe(1);
  });
});
