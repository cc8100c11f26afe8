import { describe, expect, it } from "vitest";
import { storeOf } from "../../src/index.js";
import { testDialects } from "../../../../test-support/databases.js";
import { pollUntil } from "../../../../test-support/poll.js";
import { createSlotHolder, startTestSluice } from "./test-sluice.js";

const dialects = await testDialects();

/*
 * DESIGN §3: an executor claims pending runs up to `max_concurrent_runs`. On PostgreSQL the claim statement took every
 * pending run whatever its limit (its planner ran the `LIMIT … FOR UPDATE SKIP LOCKED` subquery again for each pending
 * run, and each time it skipped what the statement had just taken): a freed slot started the whole queue at once.
 */
describe.each(dialects)("%s: runs executing at once", (dialect) => {
  it("stay within max_concurrent_runs when a slot frees with runs waiting", async () => {
    const s = await startTestSluice(dialect, { maxConcurrentRuns: 2 });
    const blocking = await createSlotHolder(s);
    const runs = [];
    for (let i = 0; i < 8; i++) runs.push(await s.runs.trigger(blocking.id));
    const statuses = async () =>
      (await storeOf(s).knex("runs").select("id", "status")) as { id: string; status: string }[];
    // both counts from one read, once the queue is down to `pending`: a claim over the free slots shows at once
    const counts = async () => {
      const all = await statuses();
      return {
        running: all.filter((r) => r.status === "running").length,
        pending: all.filter((r) => r.status === "pending").length,
      };
    };
    const settle = (pending: number) =>
      pollUntil(async () => {
        const now = await counts();
        return now.pending <= pending ? now : undefined;
      });

    expect(await settle(6)).toEqual({ running: 2, pending: 6 });

    // one slot frees: one waiting run is claimed, not the queue
    const first = (await statuses()).find((r) => r.status === "running")!;
    await s.runs.cancel(first.id);
    expect(await settle(5)).toEqual({ running: 2, pending: 5 });
    expect(s.executor.activeRunIds.length).toBeLessThanOrEqual(2);

    for (const r of runs) await s.runs.cancel(r.id).catch(() => undefined);
  });
});
