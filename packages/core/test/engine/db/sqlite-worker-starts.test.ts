import type * as childProcess from "node:child_process";
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterAll, describe, expect, it, vi } from "vitest";
import { MAX_SQLITE_WORKERS, SqliteWorker } from "../../../src/engine/db/sqlite-worker.js";

/** The turn of the event loop each process was started in (the real `fork`, watched). */
const seen = vi.hoisted(() => ({ turn: 0, forks: [] as number[] }));
vi.mock("node:child_process", async (importOriginal) => {
  const real = await importOriginal<typeof childProcess>();
  return {
    ...real,
    fork: (...args: Parameters<typeof real.fork>) => {
      seen.forks.push(seen.turn);
      return real.fork(...args);
    },
  };
});

let counting = true;
void (async () => {
  while (counting) {
    await nextTurn();
    seen.turn++;
  }
})();
afterAll(() => {
  counting = false;
});

/*
 * Starting a process holds the starting thread for 1–25 ms on a two-core machine, more while the processes started
 * just before it boot. A wave of 16 `sql` nodes started 16 SQLite workers in one turn of the event loop, 0.1–0.2 s in
 * which the server answered no one (found by a helper's sweep). They start one a turn, the server's other work
 * between them.
 */
describe("SQLite workers opened at once", () => {
  it("start one a turn of the event loop", async () => {
    seen.forks.length = 0;
    const workers = await Promise.all(Array.from({ length: MAX_SQLITE_WORKERS }, () => SqliteWorker.open(":memory:")));
    try {
      const answers = await Promise.all(workers.map((w, i) => w.run("select ? as n", [i])));
      expect(answers.map((a) => a.rows)).toEqual(workers.map((_, i) => [{ n: i }]));
      expect(seen.forks).toHaveLength(MAX_SQLITE_WORKERS);
      expect(new Set(seen.forks).size).toBe(MAX_SQLITE_WORKERS);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  }, 60_000);
});
