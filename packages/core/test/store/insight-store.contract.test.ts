import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, storeOf, type Sluice } from "../../src/service/create-sluice.js";
import { silentLogger } from "../../src/logger.js";
import { newId } from "../../src/ids.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

const dialects = await testDialects();
const NOW = new Date("2026-11-22T12:00:00Z");
const daysAgo = (n: number, hour = 10) => new Date(Date.UTC(2026, 10, 22 - n, hour)).toISOString();

describe.each(dialects)("%s insight queries", (dialect) => {
  let db: TestDatabase;
  let sluice: Sluice;
  let a: string;
  let b: string;
  let idle: string;

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    sluice = await createSluice({ database: db.url, logger: silentLogger, clock: { now: () => NOW } });
    a = (await sluice.pipelines.create({ name: "Alpha Orders", description: "loads ORDERS nightly" })).id;
    b = (await sluice.pipelines.create({ name: "beta", description: "50%_off campaign" })).id;
    idle = (await sluice.pipelines.create({ name: "idle" })).id;
    const run = (pipeline_id: string, status: string, created_at: string) => ({
      id: newId(),
      pipeline_id,
      status,
      trigger: "manual",
      params: "{}",
      error: status === "failed" ? "boom" : null,
      created_at,
      started_at: created_at,
      finished_at: status === "running" ? null : created_at,
    });
    await storeOf(sluice)
      .knex("runs")
      .insert([
        run(a, "success", daysAgo(0, 9)),
        run(a, "failed", daysAgo(0, 11)),
        run(a, "failed", daysAgo(2)),
        run(a, "success", daysAgo(10)),
        run(b, "success", daysAgo(1)),
        run(b, "running", daysAgo(0, 11)),
        run(b, "failed", daysAgo(6)),
      ]);
    await storeOf(sluice).knex("connections").insert({
      id: newId(),
      conn_id: "orders-db",
      type: "postgres",
      host: "db.internal",
      port: 5432,
      schema: "shop",
      login: "u",
      password_enc: "v1:secret-envelope",
      extra_enc: null,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
    });
    await storeOf(sluice)
      .knex("variables")
      .insert([
        {
          key: "ORDERS_TOKEN",
          type: "secret",
          value: "v1:enc",
          created_at: NOW.toISOString(),
          updated_at: NOW.toISOString(),
        },
        {
          key: "region",
          type: "string",
          value: "orders-eu",
          created_at: NOW.toISOString(),
          updated_at: NOW.toISOString(),
        },
      ]);
  });
  afterAll(async () => {
    await sluice?.close();
    await db?.drop();
  });

  it(`${dialect}: summary has last-run status and counts per pipeline, zeros without runs`, async () => {
    const summary = await sluice.insights.summary();
    expect(summary.find((p) => p.id === a)).toMatchObject({
      last_run_status: "failed",
      last_run_at: daysAgo(0, 11),
      runs_total: 4,
      runs_success: 2,
      runs_failed: 2,
    });
    expect(summary.find((p) => p.id === b)).toMatchObject({
      last_run_status: "running",
      runs_total: 3,
      runs_success: 1,
      runs_failed: 1,
    });
    expect(summary.find((p) => p.id === idle)).toMatchObject({
      last_run_status: null,
      last_run_at: null,
      runs_total: 0,
    });
  });

  it(`${dialect}: the latest run of each pipeline that has runs, by created_at`, async () => {
    const latest = await storeOf(sluice).insights.latestRuns();
    expect(
      latest
        .filter((r) => [a, b, idle].includes(r.pipeline_id))
        .sort((x, y) => (x.pipeline_id < y.pipeline_id ? -1 : 1)),
    ).toEqual(
      [
        { pipeline_id: a, created_at: daysAgo(0, 11) },
        { pipeline_id: b, created_at: daysAgo(0, 11) },
      ].sort((x, y) => (x.pipeline_id < y.pipeline_id ? -1 : 1)),
    );
  });

  it(`${dialect}: dashboard has 7 zero-filled trend days, top failing and recent runs`, async () => {
    const d = await sluice.insights.dashboard();
    expect(d.trends.map((t) => t.date)).toEqual([
      "2026-11-16",
      "2026-11-17",
      "2026-11-18",
      "2026-11-19",
      "2026-11-20",
      "2026-11-21",
      "2026-11-22",
    ]);
    expect(d.trends.at(-1)).toEqual({ date: "2026-11-22", success: 1, failed: 1, total: 3 });
    expect(d.trends.find((t) => t.date === "2026-11-17")).toEqual({
      date: "2026-11-17",
      success: 0,
      failed: 0,
      total: 0,
    });
    expect(d.trends.find((t) => t.date === "2026-11-16")).toEqual({
      date: "2026-11-16",
      success: 0,
      failed: 1,
      total: 1,
    });
    expect(d.top_failing).toEqual([
      { pipeline_id: a, name: "Alpha Orders", fail_count: 2 },
      { pipeline_id: b, name: "beta", fail_count: 1 },
    ]);
    expect(d.recent_runs).toHaveLength(7);
    expect(d.recent_runs[0]).toMatchObject({ pipeline_name: expect.any(String), created_at: daysAgo(0, 11) });
    expect(d.counters).toMatchObject({ pipelines: 3, runs_total: 7, active_runs: 1, queued_runs: 0 });
    expect(d.pipelines).toHaveLength(3);
  });

  it(`${dialect}: daily counts of one pipeline leave the others out`, async () => {
    const since = daysAgo(6, 0);
    const sum = (rows: { count: number }[]) => rows.reduce((n, r) => n + r.count, 0);
    expect(sum(await storeOf(sluice).insights.dailyCounts(since))).toBe(6);
    expect(await storeOf(sluice).insights.dailyCounts(since, a)).toEqual(
      expect.arrayContaining([
        { date: "2026-11-22", status: "success", count: 1 },
        { date: "2026-11-22", status: "failed", count: 1 },
        { date: "2026-11-20", status: "failed", count: 1 },
      ]),
    );
    expect(sum(await storeOf(sluice).insights.dailyCounts(since, a))).toBe(3);
    expect(sum(await storeOf(sluice).insights.dailyCounts(since, b))).toBe(3);
    expect(await storeOf(sluice).insights.dailyCounts(since, idle)).toEqual([]);
    const trend = await sluice.insights.trends(3, b);
    expect(trend).toEqual([
      { date: "2026-11-20", success: 0, failed: 0, total: 0 },
      { date: "2026-11-21", success: 1, failed: 0, total: 1 },
      { date: "2026-11-22", success: 0, failed: 0, total: 1 },
    ]);
  });

  it(`${dialect}: search is a case-insensitive substring over pipelines, connections and variable keys`, async () => {
    const hits = await sluice.insights.search({ q: "ORDERS", limit: 30 });
    expect(hits.map((h) => `${h.type}:${h.name}`).sort()).toEqual([
      "connection:orders-db",
      "pipeline:Alpha Orders",
      "variable:ORDERS_TOKEN",
    ]);
    expect(JSON.stringify(hits)).not.toMatch(/secret-envelope|v1:enc/);
    expect((await sluice.insights.search({ q: "orders-eu", limit: 30 })).length).toBe(0); // values are never searched
    expect((await sluice.insights.search({ q: "50%_", limit: 30 })).map((h) => h.id)).toEqual([b]);
    expect((await sluice.insights.search({ q: "%", limit: 30 })).map((h) => h.id)).toEqual([b]); // wildcards are literal
    expect(await sluice.insights.search({ q: "a%e", limit: 30 })).toEqual([]);
    expect((await sluice.insights.search({ q: "a", limit: 1 })).length).toBe(1);
  });
});
