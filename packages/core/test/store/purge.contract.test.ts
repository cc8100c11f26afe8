import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, storeOf, type Sluice } from "../../src/service/create-sluice.js";
import { silentLogger } from "../../src/logger.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { holdOf } from "../engine/nodes/event-loop-hold.js";

const dialects = await testDialects();
const NOW = new Date("2026-11-22T12:00:00Z");
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000).toISOString();

describe.each(dialects)("%s system purge", (dialect) => {
  let db: TestDatabase;
  let sluice: Sluice;
  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    sluice = await createSluice({ database: db.url, logger: silentLogger, clock: { now: () => NOW } });
    const k = storeOf(sluice).knex;
    const runs = [
      ["old-1", "success", daysAgo(40)],
      ["old-2", "failed", daysAgo(31)],
      ["old-running", "running", daysAgo(45)],
      ["new-1", "success", daysAgo(5)],
    ] as const;
    for (const [id, status, created_at] of runs) {
      await k("runs").insert({ id, pipeline_id: "p", status, trigger: "manual", params: "{}", created_at });
      await k("node_runs").insert({
        id: `${id}-n`,
        run_id: id,
        node_id: "n",
        status: "success",
        attempt: 1,
        row_count: 1,
        duration_ms: 1,
      });
      await k("run_logs").insert({ run_id: id, node_id: "n", level: "info", message: "m", timestamp: created_at });
      await k("node_outputs").insert({ run_id: id, node_id: "n", kind: "preview", data: "{}", created_at });
      await k("dlq_entries").insert({
        id: `${id}-d`,
        pipeline_id: "p",
        run_id: id,
        node_id: "n",
        node_name: "n",
        error: "e",
        payload: "[]",
        created_at,
        resolved: false,
      });
    }
  });
  afterAll(async () => {
    await sluice?.close();
    await db?.drop();
  });

  it(`${dialect}: deletes finished runs older than the cutoff with their node runs, logs, outputs and DLQ entries`, async () => {
    expect(await sluice.system.purge({})).toEqual({ deleted: 2, days: 30 });
    const k = storeOf(sluice).knex;
    const left = async (table: string, column: string) =>
      ((await k(table).select(column)) as Record<string, string>[]).map((r) => r[column]).sort();
    expect(await left("runs", "id")).toEqual(["new-1", "old-running"]);
    expect(await left("node_runs", "run_id")).toEqual(["new-1", "old-running"]);
    expect(await left("run_logs", "run_id")).toEqual(["new-1", "old-running"]);
    expect(await left("node_outputs", "run_id")).toEqual(["new-1", "old-running"]);
    expect(await left("dlq_entries", "run_id")).toEqual(["new-1", "old-running"]);
    expect(await sluice.system.purge({ days: 1 })).toEqual({ deleted: 1, days: 1 });
  });

  it(`${dialect}: purges thousands of runs in batches, the server's other work going on between them`, async () => {
    const k = storeOf(sluice).knex;
    const runs = Array.from({ length: 3_000 }, (_, i) => ({
      id: `bulk-${i}`,
      pipeline_id: "p",
      status: "success",
      trigger: "manual",
      params: "{}",
      created_at: daysAgo(60),
    }));
    for (let i = 0; i < runs.length; i += 500) await k("runs").insert(runs.slice(i, i + 500));
    const { result: deleted, turns } = await holdOf(() => storeOf(sluice).system.purgeRunsBefore(daysAgo(50), 100));
    expect(deleted).toBe(3_000);
    expect(turns).toBeGreaterThanOrEqual(29); // one at least between each two of the 30 batches
    expect(await k("runs").where("id", "like", "bulk-%").select("id")).toEqual([]);
  });

  it(`${dialect}: rejects bad days`, async () => {
    await expect(sluice.system.purge({ days: -1 })).rejects.toThrow(/days/);
    await expect(sluice.system.purge({ days: "x" })).rejects.toThrow(/days/);
    await expect(sluice.system.purge({ days: 1.5 })).rejects.toThrow(/days/);
  });
});
