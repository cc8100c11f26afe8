/**
 * What the web UI's pipeline page reads in one request each: one version's definition (to diff two versions), one
 * pipeline's run calendar, the next scheduled run in the pipelines summary, and a page of runs with their node runs
 * (the runs × nodes grid).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SluiceApiError } from "../../client/src/index.js";
import { newId, nextSlot, storeOf, type NodeRun, type Run } from "../../core/src/index.js";
import { testDialects } from "../../../test-support/databases.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";
import { FIXTURE_NODE_TYPES } from "../../core/test/engine/fixture-node-types.js";

const dialects = await testDialects();

/** The wall-clock time of an instant in a zone, `HH:MM`. */
const wallClock = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(
    new Date(iso),
  );

async function statusAndError(response: Promise<Response>): Promise<[number, unknown]> {
  const r = await response;
  return [r.status, ((await r.json()) as { error?: unknown }).error];
}

describe.each(dialects)("%s pipeline page API", (dialect) => {
  let t: TestServer;
  let pipelineId: string;
  let otherId: string;
  beforeAll(async () => {
    t = await startTestServer(dialect, { nodeTypes: FIXTURE_NODE_TYPES });
    const p = await t.client.pipelines.create({
      name: "page",
      nodes: [
        { id: "src", type: "source_file", config: { rows: [{ id: 1 }, { id: 2 }] } },
        { id: "work", type: "code", config: { code: "x" } },
      ],
      edges: [{ from: "src", to: "work" }],
    });
    pipelineId = p.id;
    otherId = (await t.client.pipelines.create({ name: "other" })).id;
  });
  afterAll(async () => t?.close());

  describe("GET /pipelines/{id}/versions/{version_id}", () => {
    it(`${dialect}: one version with the definition it recorded, so two versions can be diffed`, async () => {
      await t.client.pipelines.update(pipelineId, { description: "second", schedule: "15 4 * * *" });
      const [v2, v1] = await t.client.pipelines.versions(pipelineId);
      const first = await t.client.pipelines.version(pipelineId, v1!.version_id);
      expect(Object.keys(first).sort()).toEqual(["created_at", "message", "snapshot", "version", "version_id"]);
      expect(first).toMatchObject({ ...v1, version: 1, message: "created" });
      expect(first.snapshot).toMatchObject({
        name: "page",
        description: "",
        schedule: null,
        edges: [{ from: "src", to: "work" }],
      });
      expect(first.snapshot.nodes.map((n) => n.id)).toEqual(["src", "work"]);
      const second = await t.client.pipelines.version(pipelineId, v2!.version_id);
      expect(second).toMatchObject({ version: 2, snapshot: { description: "second", schedule: "15 4 * * *" } });
      // the snapshot holds the definition fields only, never ids, timestamps or the token
      for (const key of ["id", "created_at", "updated_at", "webhook_token", "webhook_configured"])
        expect(second.snapshot).not.toHaveProperty(key);
    });

    it(`${dialect}: 404 with the API's error shape for an unknown pipeline or version, or another pipeline's`, async () => {
      const [mine] = await t.client.pipelines.versions(pipelineId);
      const [theirs] = await t.client.pipelines.versions(otherId);
      expect(await statusAndError(t.fetch(`/pipelines/${otherId}/versions/${mine!.version_id}`))).toEqual([
        404,
        `version '${mine!.version_id}' not found`,
      ]);
      expect(await statusAndError(t.fetch(`/pipelines/${pipelineId}/versions/${theirs!.version_id}`))).toEqual([
        404,
        `version '${theirs!.version_id}' not found`,
      ]);
      expect(await statusAndError(t.fetch(`/pipelines/${pipelineId}/versions/missing`))).toEqual([
        404,
        "version 'missing' not found",
      ]);
      expect(await statusAndError(t.fetch(`/pipelines/missing/versions/${mine!.version_id}`))).toEqual([
        404,
        "pipeline 'missing' not found",
      ]);
      const error = await t.client.pipelines.version("missing", "missing").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SluiceApiError);
      expect((error as SluiceApiError).status).toBe(404);
    });
  });

  describe("GET /runs/calendar?pipeline_id=", () => {
    it(`${dialect}: counts one pipeline's runs; without pipeline_id every pipeline's; the days rule holds`, async () => {
      const other = await t.client.pipelines.create({
        name: "calendar-other",
        nodes: [{ id: "src", type: "source_file", config: { rows: [{ id: 1 }] } }],
      });
      const mine = await t.client.runs.trigger(pipelineId);
      const theirs = await Promise.all([t.client.runs.trigger(other.id), t.client.runs.trigger(other.id)]);
      for (const run of [mine, ...theirs]) await t.client.runs.waitUntilTerminal(run.id);
      const today = new Date().toISOString().slice(0, 10);
      const of = async (id?: string) => (await t.client.runs.calendar(7, id)).find((d) => d.date === today);

      const all = await of();
      const mineToday = await of(pipelineId);
      const theirsToday = await of(other.id);
      expect(theirsToday).toEqual({ date: today, success: 2, failed: 0, total: 2 });
      expect(mineToday!.total).toBeGreaterThanOrEqual(1);
      expect(all!.total).toBe(mineToday!.total + theirsToday!.total);
      expect(await t.client.runs.calendar(3, otherId)).toEqual(
        (await t.client.runs.calendar(3)).map((d) => ({ date: d.date, success: 0, failed: 0, total: 0 })),
      );

      expect(await t.client.runs.calendar(undefined, other.id)).toHaveLength(90);
      expect(await t.client.runs.calendar(5000, other.id)).toHaveLength(365);
      expect((await t.fetch(`/runs/calendar?days=0&pipeline_id=${other.id}`)).status).toBe(400);
      expect((await t.fetch(`/runs/calendar?days=abc&pipeline_id=${other.id}`)).status).toBe(400);
      expect((await t.fetch("/runs/calendar?pipeline_id=")).status).toBe(400);
      expect(await statusAndError(t.fetch("/runs/calendar?pipeline_id=missing"))).toEqual([
        404,
        "pipeline 'missing' not found",
      ]);
    });
  });

  describe("GET /pipelines/summary next_run_at", () => {
    it(`${dialect}: the next slot of enabled schedules in their zone; null when paused or unscheduled`, async () => {
      const tokyo = await t.client.pipelines.create({
        name: "tokyo",
        schedule: "0 3 * * *",
        schedule_timezone: "Asia/Tokyo",
      });
      const utc = await t.client.pipelines.create({ name: "utc", schedule: "*/30 * * * *" });
      const paused = await t.client.pipelines.create({ name: "paused", schedule: "0 3 * * *", enabled: false });
      const before = new Date();
      const summary = await t.client.insights.summary();
      const after = new Date();
      const entry = (id: string) => summary.find((s) => s.id === id)!;

      expect(entry(tokyo.id)).toMatchObject({ schedule_timezone: "Asia/Tokyo" });
      expect(wallClock(entry(tokyo.id).next_run_at!, "Asia/Tokyo")).toBe("03:00");
      for (const id of [tokyo.id, utc.id]) {
        const next = Date.parse(entry(id).next_run_at!);
        expect(next).toBeGreaterThan(before.getTime());
        expect(next).toBeLessThanOrEqual(nextSlot(entry(id).schedule!, entry(id).schedule_timezone, after).getTime());
      }
      expect(Date.parse(entry(tokyo.id).next_run_at!) - before.getTime()).toBeLessThanOrEqual(86_400_000);
      expect(entry(utc.id)).toMatchObject({ schedule_timezone: "UTC" });
      expect(Date.parse(entry(utc.id).next_run_at!) - before.getTime()).toBeLessThanOrEqual(30 * 60_000);
      expect(entry(paused.id)).toMatchObject({ next_run_at: null });
      expect(entry(otherId)).toMatchObject({ schedule: null, next_run_at: null, schedule_timezone: "UTC" });
      // the scheduler reports the same instants
      const status = await t.client.scheduler.status();
      for (const s of status) expect(entry(s.pipeline_id).next_run_at).toBe(s.next_run);

      await t.client.pipelines.update(tokyo.id, { enabled: false });
      expect((await t.client.insights.summary()).find((s) => s.id === tokyo.id)?.next_run_at).toBeNull();
    });
  });

  describe("GET /pipelines/{id}/runs?include=nodes", () => {
    it(`${dialect}: each run carries the node_runs GET /runs/{id} has; plain list and envelope alike`, async () => {
      const run = await t.client.runs.waitUntilTerminal((await t.client.runs.trigger(pipelineId)).id);
      const list = await t.client.runs.listWithNodes(pipelineId);
      const listed = list.find((r) => r.id === run.id);
      expect(listed).toEqual(run);
      expect(listed!.node_runs.map((n) => n.node_id)).toEqual(["src", "work"]);
      for (const r of list) expect(r.node_runs).toEqual((await t.client.runs.get(r.id)).node_runs);

      const page = (await (await t.fetch(`/pipelines/${pipelineId}/runs?include=nodes&per_page=1`)).json()) as {
        items: (Run & { node_runs: NodeRun[] })[];
        total: number;
      };
      expect(page.total).toBe(list.length);
      expect(page.items).toEqual([list[0]]);
      // without include the runs stay as they were
      expect((await t.client.runs.list(pipelineId))[0]).not.toHaveProperty("node_runs");
      expect((await t.fetch(`/pipelines/${pipelineId}/runs?include=logs`)).status).toBe(400);
      expect((await t.fetch("/pipelines/missing/runs?include=nodes")).status).toBe(404);
    });

    it(`${dialect}: 100 runs × 50 nodes in one request, with one query for all their node runs`, async () => {
      const grid = await t.client.pipelines.create({ name: "grid" });
      const store = storeOf(t.sluice);
      const base = Date.parse("2026-03-01T00:00:00Z");
      const runs: Run[] = Array.from({ length: 100 }, (_, i) => ({
        id: newId(),
        pipeline_id: grid.id,
        status: i % 7 === 0 ? "failed" : "success",
        trigger: "schedule",
        params: {},
        error: null,
        created_at: new Date(base + i * 60_000).toISOString(),
        started_at: null,
        finished_at: null,
      }));
      await store.runs.insert(runs);
      const nodeRuns: NodeRun[] = runs.flatMap((run) =>
        Array.from({ length: 50 }, (_, n) => ({
          id: newId(),
          run_id: run.id,
          node_id: `n${n}`,
          status: run.status === "failed" && n === 49 ? "failed" : "success",
          attempt: 1,
          row_count: n,
          duration_ms: 1,
          started_at: run.created_at,
          finished_at: run.created_at,
          error: null,
        })),
      );
      await store.runs.writeBatch({ nodeRuns, logs: [], outputs: [] });

      const queries: string[] = [];
      const onQuery = (q: { sql: string }) => queries.push(q.sql);
      store.knex.on("query", onQuery);
      let page: { items: (Run & { node_runs: NodeRun[] })[] };
      try {
        page = (await (await t.fetch(`/pipelines/${grid.id}/runs?include=nodes&per_page=100`)).json()) as typeof page;
      } finally {
        store.knex.off("query", onQuery);
      }
      // reads of node_runs only: the executor's claim, which may run meanwhile, mentions node_runs in an UPDATE
      expect(queries.filter((sql) => /^select\b/i.test(sql) && sql.includes("node_runs"))).toHaveLength(1);
      expect(page.items).toHaveLength(100);
      expect(page.items[0]!.id).toBe(runs[99]!.id);
      for (const item of page.items) {
        expect(item.node_runs).toHaveLength(50);
        expect(new Set(item.node_runs.map((n) => n.run_id))).toEqual(new Set([item.id]));
      }
      const failedRun = page.items.find((r) => r.id === runs[0]!.id)!;
      expect(failedRun.node_runs.find((n) => n.node_id === "n49")).toMatchObject({ status: "failed", row_count: 49 });
    });
  });
});
