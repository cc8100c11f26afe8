import { describe, expect, it } from "vitest";
import { MAX_SQLITE_WORKERS, SqliteWorker } from "../../../src/engine/db/sqlite-worker.js";

/*
 * Each SQLite worker is a process of tens of MB: a pipeline of 64 parallel SQLite nodes times 8 runs must not start
 * hundreds. Past the limit, a node waits for a worker to end.
 */
describe("SQLite worker processes are limited", () => {
  it(`at most ${MAX_SQLITE_WORKERS} at once; one more starts when one ends`, async () => {
    const open = await Promise.all(Array.from({ length: MAX_SQLITE_WORKERS }, () => SqliteWorker.open(":memory:")));
    try {
      let extra: SqliteWorker | null = null;
      const waiting = SqliteWorker.open(":memory:").then((w) => (extra = w));
      // a worker starts in tens of milliseconds: after a second the one over the limit has still not started (a
      // machine too slow to start one in a second would let this pass, never fail, without the limit)
      for (const w of open.slice(0, 3)) expect((await w.run("select 1 as n")).rows).toEqual([{ n: 1 }]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(extra).toBeNull();
      await open.shift()!.close();
      const started = await waiting;
      expect((await started.run("select 2 as n")).rows).toEqual([{ n: 2 }]);
      open.push(started);
    } finally {
      await Promise.all(open.map((w) => w.close()));
    }
  }, 60_000);
});
