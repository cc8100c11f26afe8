/**
 * `next_run_at` of the pipelines summary: the scheduler's next slot, computed in memory for every pipeline — the
 * number of queries does not grow with the number of pipelines, and a remembered slot moves on once the clock passes
 * it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, storeOf, type Sluice } from "../../src/service/create-sluice.js";
import { silentLogger } from "../../src/logger.js";
import { newId } from "../../src/ids.js";
import { nextRunAt } from "../../src/scheduler/cron.js";
import type { Pipeline } from "../../src/model/pipeline.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

const dialects = await testDialects();
const PIPELINES = 1000;
const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Lord_Howe"];

describe.each(dialects)("%s summary next_run_at", (dialect) => {
  let db: TestDatabase;
  let sluice: Sluice;
  let now = new Date("2026-03-29T00:30:00Z"); // a DST night in Europe
  const pipelines: Pipeline[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    sluice = await createSluice({ database: db.url, logger: silentLogger, clock: { now: () => now } });
    const at = now.toISOString();
    for (let i = 0; i < PIPELINES; i++) {
      const p: Pipeline = {
        id: newId(),
        name: `p${i}`,
        description: "",
        // mostly distinct expressions, so the memo cannot share evaluations between pipelines
        schedule: i % 10 === 9 ? null : `${i % 60} ${(i * 7) % 24} * * ${i % 2 ? "*" : "1-5"}`,
        schedule_timezone: i % 3 === 0 ? null : ZONES[i % ZONES.length]!,
        enabled: i % 11 !== 0,
        tags: [],
        params: {},
        nodes: [],
        edges: [],
        hooks: [],
        depends_on: [],
        sla_deadline: null,
        sla_timezone: null,
        webhook_token: null,
        parallelism: null,
        created_at: at,
        updated_at: at,
      };
      pipelines.push(p);
      await storeOf(sluice).pipelines.insert(p, { version_id: newId(), message: "created", created_at: at });
    }
  }, 120_000);
  afterAll(async () => {
    await sluice?.close();
    await db?.drop();
  });

  it(`${dialect}: ${PIPELINES} pipelines: the scheduler's next slot for each, in a fixed number of queries`, async () => {
    const queries: string[] = [];
    const onQuery = (q: { sql: string }) => queries.push(q.sql);
    storeOf(sluice).knex.on("query", onQuery);
    const started = performance.now();
    let summary;
    try {
      summary = await sluice.insights.summary();
    } finally {
      storeOf(sluice).knex.off("query", onQuery);
    }
    const elapsed = performance.now() - started;
    expect(summary).toHaveLength(PIPELINES);
    expect(queries.length).toBeLessThanOrEqual(5);
    // generous: cron evaluation of 1,000 distinct expressions is well under a second
    expect(elapsed).toBeLessThan(5_000);
    const byId = new Map(summary.map((s) => [s.id, s]));
    for (const p of pipelines) {
      const entry = byId.get(p.id)!;
      expect(entry.schedule_timezone).toBe(p.schedule_timezone ?? "UTC");
      expect(entry.next_run_at).toBe(nextRunAt(p, now)?.toISOString() ?? null);
      if (!p.enabled || !p.schedule) expect(entry.next_run_at).toBeNull();
      else expect(Date.parse(entry.next_run_at!)).toBeGreaterThan(now.getTime());
    }
  });

  it(`${dialect}: a remembered next run moves on once the clock passes it, and back with a clock set back`, async () => {
    const p = pipelines.find((x) => x.enabled && x.schedule)!;
    const first = (await sluice.insights.summary()).find((s) => s.id === p.id)!.next_run_at!;
    const start = now;
    now = new Date(Date.parse(first));
    const onTheSlot = (await sluice.insights.summary()).find((s) => s.id === p.id)!.next_run_at!;
    expect(Date.parse(onTheSlot)).toBeGreaterThan(Date.parse(first));
    expect(onTheSlot).toBe(nextRunAt(p, now)?.toISOString());
    now = start;
    expect((await sluice.insights.summary()).find((s) => s.id === p.id)!.next_run_at).toBe(first);
  });
});
