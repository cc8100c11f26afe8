import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SluiceApiError } from "../../client/src/index.js";
import { testDialects } from "../../../test-support/databases.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";
import { FIXTURE_NODE_TYPES, probe } from "../../core/test/engine/fixture-node-types.js";

const dialects = await testDialects();

describe.each(dialects)("%s runs API", (dialect) => {
  let t: TestServer;
  let pipelineId: string;
  beforeAll(async () => {
    t = await startTestServer(dialect, { nodeTypes: FIXTURE_NODE_TYPES });
    const p = await t.client.pipelines.create({
      name: "runs-api",
      params: { region: "eu" },
      nodes: [
        {
          id: "src",
          type: "source_file",
          config: {
            rows: [
              { id: 1, v: "a" },
              { id: 2, v: null },
            ],
          },
        },
        { id: "work", type: "code", config: { code: "x" } },
      ],
      edges: [{ from: "src", to: "work" }],
    });
    pipelineId = p.id;
  });
  afterAll(async () => t?.close());

  it(`${dialect}: trigger → 202 {id, pipeline_id, status}; the run and its node runs; logs, export, preview, profile`, async () => {
    const res = await t.fetch(`/pipelines/${pipelineId}/run`, { method: "POST", json: { params: { day: "1" } } });
    expect(res.status).toBe(202);
    const accepted = await res.json();
    expect(accepted).toEqual({ id: expect.any(String), pipeline_id: pipelineId, status: "pending" });
    const run = await t.client.runs.waitUntilTerminal(accepted.id);
    expect(run).toMatchObject({
      id: accepted.id,
      pipeline_id: pipelineId,
      status: "success",
      trigger: "manual",
      params: { region: "eu", day: "1" },
      error: null,
    });
    expect(run.node_runs.map((n) => [n.node_id, n.status, n.row_count]).sort()).toEqual([
      ["src", "success", 2],
      ["work", "success", 2],
    ]);
    expect(Object.keys(run.node_runs[0]!).sort()).toEqual([
      "attempt",
      "duration_ms",
      "error",
      "finished_at",
      "id",
      "node_id",
      "row_count",
      "run_id",
      "started_at",
      "status",
    ]);

    const logs = await t.client.runs.logs(run.id);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.every((l) => l.run_id === run.id && typeof l.timestamp === "string")).toBe(true);
    expect((await t.client.runs.logs(run.id, { node_id: "src" })).every((l) => l.node_id === "src")).toBe(true);
    expect(await t.client.runs.logs(run.id, { level: "error" })).toEqual([]);

    const exported = await t.fetch(`/runs/${run.id}/logs/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(exported.headers.get("content-disposition")).toBe(`attachment; filename="run-${run.id}-logs.txt"`);
    const lines = (await exported.text()).trim().split("\n");
    expect(lines).toHaveLength(logs.length);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[0-9:.]+Z \[info\] \[src\] /);

    expect(await t.client.runs.preview(run.id, "src")).toEqual({
      node_id: "src",
      columns: ["id", "v"],
      rows: [
        { id: 1, v: "a" },
        { id: 2, v: null },
      ],
    });
    const profile = await t.client.runs.profile(run.id, "src");
    expect(profile.row_count).toBe(2);
    expect(profile.columns.find((c) => c.name === "v")).toMatchObject({ null_count: 1, distinct_count: 1 });
  });

  it(`${dialect}: runs list is an array (newest first), page/per_page give the envelope; calendar counts`, async () => {
    const a = await t.client.runs.trigger(pipelineId);
    await t.client.runs.waitUntilTerminal(a.id);
    const list = await t.client.runs.list(pipelineId);
    expect(Array.isArray(list)).toBe(true);
    expect(list[0]?.id).toBe(a.id);
    const page = await t.client.runs.listPage(pipelineId, { per_page: 1 });
    expect(page).toMatchObject({ page: 1, per_page: 1, total: list.length, pages: list.length });
    expect(page.items).toHaveLength(1);
    const calendar = await t.client.runs.calendar(3);
    expect(calendar).toHaveLength(3);
    expect(Object.keys(calendar[2]!).sort()).toEqual(["date", "failed", "success", "total"]);
    expect(calendar[2]!.success).toBeGreaterThanOrEqual(2);
    expect(await t.client.runs.calendar()).toHaveLength(90);
    expect(await t.client.runs.calendar(5000)).toHaveLength(365);
  });

  it(`${dialect}: backfill 202 with run ids; dry-run keyed by node id without a run record`, async () => {
    const res = await t.fetch(`/pipelines/${pipelineId}/backfill`, {
      method: "POST",
      json: { start_date: "2026-01-01", end_date: "2026-01-03" },
    });
    expect(res.status).toBe(202);
    const ids = (await res.json()) as string[];
    expect(ids).toHaveLength(3);
    const runs = await Promise.all(ids.map((id) => t.client.runs.waitUntilTerminal(id)));
    expect(runs.map((r) => r.params.date)).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"]);
    const before = (await t.client.runs.list(pipelineId)).length;
    const dry = await t.client.runs.dryRun(pipelineId);
    expect(Object.keys(dry).sort()).toEqual(["src", "work"]);
    expect(dry.work).toEqual({
      node_id: "work",
      name: "work",
      status: "success",
      columns: ["id", "v"],
      rows: [
        { id: 1, v: "a" },
        { id: 2, v: null },
      ],
    });
    expect((await t.client.runs.list(pipelineId)).length).toBe(before);
  });

  it(`${dialect}: cancel 200 / 409, resume 202 / 400, DLQ list and resolve`, async () => {
    probe.reset();
    probe.failUntil.set("work", 1);
    const failed = await t.client.runs.waitUntilTerminal((await t.client.runs.trigger(pipelineId)).id);
    expect(failed.status).toBe("failed");
    await expect(t.client.runs.cancel(failed.id)).rejects.toMatchObject({ status: 409 });
    const dlq = await t.client.runs.dlq(pipelineId);
    expect(dlq[0]).toMatchObject({
      run_id: failed.id,
      node_id: "work",
      resolved: false,
      payload: [
        { id: 1, v: "a" },
        { id: 2, v: null },
      ],
    });
    expect(Object.keys(dlq[0]!).sort()).toEqual([
      "created_at",
      "error",
      "id",
      "node_id",
      "node_name",
      "payload",
      "pipeline_id",
      "resolved",
      "resolved_at",
      "run_id",
    ]);
    expect(await t.client.runs.resolveDlq(pipelineId, dlq[0]!.id)).toEqual({ id: dlq[0]!.id, status: "resolved" });
    expect(await t.client.runs.dlq(pipelineId, { include_resolved: true, limit: 1 })).toHaveLength(1);

    const resumed = await t.fetch(`/runs/${failed.id}/resume`, { method: "POST" });
    expect(resumed.status).toBe(202);
    expect(await resumed.json()).toEqual({ id: failed.id, status: "pending" });
    expect((await t.client.runs.waitUntilTerminal(failed.id)).status).toBe("success");
    const again = await t.fetch(`/runs/${failed.id}/resume`, { method: "POST" });
    expect(again.status).toBe(400);
    expect((await again.json()).error).toMatch(/only failed runs/);
  });

  it(`${dialect}: a pending run can be cancelled (200)`, async () => {
    const slow = await t.client.pipelines.create({
      name: "slow",
      nodes: [{ id: "s", type: "code", config: { code: "x", sleep_ms: 200 } }],
    });
    const run = await t.client.runs.trigger(slow.id);
    expect(await t.client.runs.cancel(run.id)).toEqual({ id: run.id, status: "cancelled" });
    const done = await t.client.runs.waitUntilTerminal(run.id);
    expect(done.status).toBe("cancelled");
  });

  it(`${dialect}: bad input is 4xx with an error body, never 500`, async () => {
    const invalid = await t.client.pipelines.create({
      name: "invalid",
      nodes: [{ id: "c", type: "condition", config: {} }],
    });
    const cases: [string, string, unknown, number][] = [
      ["POST", `/pipelines/${invalid.id}/run`, {}, 422],
      ["POST", `/pipelines/${pipelineId}/run`, { params: { a: 1 } }, 400],
      ["POST", `/pipelines/${pipelineId}/run`, { nope: true }, 400],
      ["POST", "/pipelines/missing/run", {}, 404],
      ["POST", "/pipelines/missing/dry-run", {}, 404],
      ["POST", `/pipelines/${pipelineId}/backfill`, { start_date: "2026-02-30", end_date: "2026-03-01" }, 400],
      ["POST", `/pipelines/${pipelineId}/backfill`, { start_date: "2026-03-02", end_date: "2026-03-01" }, 400],
      ["POST", `/pipelines/${pipelineId}/backfill`, { start_date: "2020-01-01", end_date: "2026-03-01" }, 400],
      ["POST", `/pipelines/${pipelineId}/backfill`, {}, 400],
      ["GET", "/pipelines/missing/runs", undefined, 404],
      ["GET", `/pipelines/${pipelineId}/runs?page=0`, undefined, 400],
      ["GET", `/pipelines/${pipelineId}/runs?per_page=abc`, undefined, 400],
      ["GET", "/runs/missing", undefined, 404],
      ["POST", "/runs/missing/cancel", undefined, 404],
      ["POST", "/runs/missing/resume", undefined, 404],
      ["GET", "/runs/missing/logs", undefined, 404],
      ["GET", "/runs/missing/logs/export", undefined, 404],
      ["GET", "/runs/missing/nodes/x/preview", undefined, 404],
      ["GET", "/runs/missing/nodes/x/profile", undefined, 404],
      ["GET", "/runs/calendar?days=0", undefined, 400],
      ["GET", "/runs/calendar?days=-3", undefined, 400],
      ["GET", `/pipelines/${pipelineId}/dlq?limit=x`, undefined, 400],
      ["GET", `/pipelines/${pipelineId}/dlq?include_resolved=maybe`, undefined, 400],
      ["GET", "/pipelines/missing/dlq", undefined, 404],
      ["POST", `/pipelines/${pipelineId}/dlq/missing/resolve`, undefined, 404],
    ];
    const run = (await t.client.runs.list(pipelineId))[0]!;
    cases.push(["GET", `/runs/${run.id}/logs?level=loud`, undefined, 400]);
    cases.push(["GET", `/runs/${run.id}/nodes/nope/preview`, undefined, 404]);
    for (const [method, path, json, status] of cases) {
      const res = await t.fetch(path, { method, ...(json !== undefined ? { json } : {}) });
      expect([method, path, res.status]).toEqual([method, path, status]);
      const body = await res.json();
      expect(typeof body.error).toBe("string");
      if (status === 422) expect(body.errors).toEqual([expect.stringContaining("node 'c'")]);
    }
    const malformed = await t.fetch(`/pipelines/${pipelineId}/run`, {
      method: "POST",
      body: "{oops",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    await expect(t.client.runs.get("missing")).rejects.toBeInstanceOf(SluiceApiError);
  });
});
