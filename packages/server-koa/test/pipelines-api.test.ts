import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SluiceApiError } from "../../client/src/index.js";
import { testDialects } from "../../../test-support/databases.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

const dialects = await testDialects();

const twoNodes = {
  nodes: [
    {
      id: "src",
      type: "source_db",
      name: "Source",
      config: { conn_id: "pg", query: "select 1" },
      position: { x: 0, y: 0 },
    },
    {
      id: "out",
      type: "sink_file",
      name: "Out",
      config: { path: "out.csv", format: "csv" },
      position: { x: 200, y: 0 },
    },
  ],
  edges: [{ from: "src", to: "out" }],
};

describe.each(dialects)("%s pipelines API", (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(dialect);
  });
  afterAll(async () => t?.close());

  it(`${dialect}: create returns 201 with the full pipeline and a generated id`, async () => {
    const res = await t.fetch("/pipelines", {
      method: "POST",
      json: { name: "orders", description: "d", tags: ["x"], params: { a: "1" }, schedule: "*/5 * * * *", ...twoNodes },
    });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).toMatchObject({
      name: "orders",
      description: "d",
      tags: ["x"],
      params: { a: "1" },
      enabled: true,
      schedule: "*/5 * * * *",
    });
    expect(body.nodes).toHaveLength(2);
    expect(body.edges).toEqual([{ from: "src", to: "out" }]);
    expect(body.hooks).toEqual([]);
    expect(body.created_at).toMatch(/Z$/);
    const fetched = await t.client.pipelines.get(body.id);
    expect(fetched).toEqual(body);
  });

  it(`${dialect}: list is a plain array of summaries; page/per_page give the envelope`, async () => {
    await t.client.pipelines.create({ name: "p-list-1" });
    await t.client.pipelines.create({ name: "p-list-2", ...twoNodes });
    const list = (await (await t.fetch("/pipelines")).json()) as Record<string, unknown>[];
    expect(Array.isArray(list)).toBe(true);
    const summary = list.find((p) => p.name === "p-list-2");
    expect(summary).toMatchObject({ node_count: 2, edge_count: 1, enabled: true });
    expect(summary).not.toHaveProperty("nodes");
    expect(summary).not.toHaveProperty("edges");
    expect(Object.keys(summary ?? {}).sort()).toEqual(
      [
        "created_at",
        "description",
        "edge_count",
        "enabled",
        "id",
        "name",
        "node_count",
        "schedule",
        "tags",
        "updated_at",
      ].sort(),
    );
    const env = await (await t.fetch("/pipelines?page=1&per_page=1")).json();
    expect(env).toMatchObject({ page: 1, per_page: 1, total: list.length, pages: list.length });
    expect(env.items).toHaveLength(1);
    const perPageOnly = await (await t.fetch("/pipelines?per_page=2")).json();
    expect(perPageOnly).toMatchObject({ page: 1, per_page: 2 });
    const clamped = await (await t.fetch("/pipelines?per_page=100000")).json();
    expect(clamped.per_page).toBe(500);
  });

  it(`${dialect}: partial update keeps other fields and records a version per update`, async () => {
    const p = await t.client.pipelines.create({ name: "upd", schedule: "0 * * * *", ...twoNodes });
    const res = await t.fetch(`/pipelines/${p.id}`, { method: "PUT", json: { enabled: false } });
    expect(res.status).toBe(200);
    const updated = await res.json();
    expect(updated).toMatchObject({ enabled: false, name: "upd", schedule: "0 * * * *" });
    expect(updated.nodes).toHaveLength(2);
    await t.client.pipelines.update(p.id, { schedule: "5 * * * *", enabled: true });
    const versions = await t.client.pipelines.versions(p.id);
    expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(versions[0]).toEqual({
      version_id: expect.any(String),
      version: 3,
      message: expect.any(String),
      created_at: expect.any(String),
    });
  });

  it(`${dialect}: a pipeline whose dependency was deleted can still be paused; a new missing dependency is refused`, async () => {
    const upstream = await t.client.pipelines.create({ name: "upstream" });
    const p = await t.client.pipelines.create({ name: "dependent", schedule: "0 * * * *", depends_on: [upstream.id] });
    expect((await t.fetch(`/pipelines/${upstream.id}`, { method: "DELETE" })).status).toBe(204);
    const paused = await t.fetch(`/pipelines/${p.id}`, { method: "PUT", json: { enabled: false } });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ enabled: false, depends_on: [upstream.id] });
    const bulk = await t.fetch("/pipelines/bulk", { method: "POST", json: { action: "enable", ids: [p.id] } });
    expect(await bulk.json()).toMatchObject({ succeeded: [p.id], failed: [] });
    // validate still names the missing dependency
    const check = await (await t.fetch(`/pipelines/${p.id}/validate`)).json();
    expect(check.errors).toEqual(expect.arrayContaining([expect.stringContaining(upstream.id)]));
    const other = "00000000-0000-4000-8000-000000000000";
    const refused = await t.fetch(`/pipelines/${p.id}`, { method: "PUT", json: { depends_on: [upstream.id, other] } });
    expect(refused.status).toBe(400);
    expect((await refused.json()).errors).toEqual([`depends_on references missing pipeline '${other}'`]);
  });

  it(`${dialect}: a fetched pipeline can be sent back as an update`, async () => {
    const p = await t.client.pipelines.create({ name: "roundtrip", ...twoNodes });
    const res = await t.fetch(`/pipelines/${p.id}`, { method: "PUT", json: { ...p, description: "changed" } });
    expect(res.status).toBe(200);
    expect((await res.json()).description).toBe("changed");
  });

  it(`${dialect}: rollback restores a snapshot and records a new version`, async () => {
    const p = await t.client.pipelines.create({ name: "v1 name" });
    await t.client.pipelines.update(p.id, { name: "v2 name" });
    const versions = await t.client.pipelines.versions(p.id);
    const v1 = versions.find((v) => v.version === 1)!;
    const rolled = await t.client.pipelines.rollback(p.id, v1.version_id);
    expect(rolled.name).toBe("v1 name");
    const after = await t.client.pipelines.versions(p.id);
    expect(after[0]).toMatchObject({ version: 3, message: "rollback to v1" });
    expect(
      (await t.fetch(`/pipelines/${p.id}/rollback`, { method: "POST", json: { version_id: "nope" } })).status,
    ).toBe(404);
    expect((await t.fetch(`/pipelines/${p.id}/rollback`, { method: "POST", json: {} })).status).toBe(400);
  });

  it(`${dialect}: delete answers 204 with no body, then 404`, async () => {
    const p = await t.client.pipelines.create({ name: "gone" });
    const res = await t.fetch(`/pipelines/${p.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect((await t.fetch(`/pipelines/${p.id}`)).status).toBe(404);
    expect((await t.fetch(`/pipelines/${p.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it(`${dialect}: clone appends " (Copy)", disables it and clears the webhook token`, async () => {
    const p = await t.client.pipelines.create({ name: "src-pipe", webhook_token: "secret-token-0123456", ...twoNodes });
    const res = await t.fetch(`/pipelines/${p.id}/clone`, { method: "POST" });
    expect(res.status).toBe(201);
    const copy = await res.json();
    expect(copy).toMatchObject({ name: "src-pipe (Copy)", enabled: false, webhook_token: null });
    expect(copy.id).not.toBe(p.id);
    expect(copy.nodes).toEqual(p.nodes);
  });

  it(`${dialect}: export then import round-trips, without id or webhook token`, async () => {
    const p = await t.client.pipelines.create({
      name: "exp",
      webhook_token: "hide-me-0123456789",
      params: { k: "v" },
      ...twoNodes,
    });
    const res = await t.fetch(`/pipelines/${p.id}/export`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.sluice_export).toBe(1);
    expect(doc.pipeline).not.toHaveProperty("id");
    expect(doc.pipeline).not.toHaveProperty("webhook_token");
    expect(JSON.stringify(doc)).not.toContain("hide-me-0123456789");
    const imported = await t.fetch("/pipelines/import", { method: "POST", json: doc });
    expect(imported.status).toBe(201);
    const created = await imported.json();
    expect(created.id).not.toBe(p.id);
    expect(created).toMatchObject({ name: "exp", params: { k: "v" } });
    expect(created.nodes).toEqual(p.nodes);
    const bare = await t.fetch("/pipelines/import", { method: "POST", json: { name: "bare import" } });
    expect(bare.status).toBe(201);
    const invalid = await t.fetch("/pipelines/import", {
      method: "POST",
      json: { sluice_export: 1, pipeline: { name: "" } },
    });
    expect(invalid.status).toBe(400);
  });

  it(`${dialect}: validate reports errors and warnings of the stored pipeline`, async () => {
    const p = await t.client.pipelines.create({
      name: "val",
      params: { unused: "x" },
      nodes: [
        { id: "a", type: "source_db", config: { conn_id: "x" } },
        { id: "b", type: "transform", config: { rules: [] } },
      ],
      edges: [{ from: "a", to: "b" }],
    });
    const result = await t.client.pipelines.validate(p.id);
    expect(result.valid).toBe(false);
    expect(result.errors.join("\n")).toMatch(/node 'a'.*query/);
    expect(result.warnings.join("\n")).toMatch(/node 'b' has no downstream connections/);
    expect(result.warnings.join("\n")).toMatch(/param 'unused'/);
    const ok = await t.client.pipelines.create({ name: "ok", ...twoNodes });
    await t.fetch("/connections", { method: "POST", json: { conn_id: "pg", type: "postgres", host: "127.0.0.1" } });
    expect(await t.client.pipelines.validate(ok.id)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it(`${dialect}: validate names a connection or variable the pipeline uses that does not exist (any more)`, async () => {
    await t.fetch("/connections", {
      method: "POST",
      json: { conn_id: "gone_db", type: "postgres", host: "127.0.0.1" },
    });
    await t.fetch("/variables", { method: "POST", json: { key: "gone_table", value: "orders" } });
    await t.fetch("/variables", { method: "POST", json: { key: "kept_var", value: "x" } });
    const p = await t.client.pipelines.create({
      name: "refs",
      nodes: [
        {
          id: "src",
          type: "source_db",
          config: { conn_id: "gone_db", query: "select * from ${var.gone_table} where a = '${var.kept_var}'" },
        },
        { id: "out", type: "sink_file", config: { path: "out-${var.gone_table}.csv" } },
      ],
      edges: [{ from: "src", to: "out" }],
    });
    expect(await t.client.pipelines.validate(p.id)).toEqual({ valid: true, errors: [], warnings: [] });
    expect((await t.fetch("/connections/gone_db", { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch("/variables/gone_table", { method: "DELETE" })).status).toBe(204);
    const result = await t.client.pipelines.validate(p.id);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      "node 'src': connection 'gone_db' does not exist",
      "node 'src': variable 'gone_table' does not exist (${var.gone_table})",
      "node 'out': variable 'gone_table' does not exist (${var.gone_table})",
    ]);
  });

  it(`${dialect}: validate-nodes checks nodes one by one`, async () => {
    const p = await t.client.pipelines.create({ name: "vn", ...twoNodes });
    const all = await t.client.pipelines.validateNodes(p.id);
    expect(all.valid).toBe(true);
    expect(all.nodes.map((n) => n.node_id)).toEqual(["src", "out"]);
    const proposed = await t.client.pipelines.validateNodes(p.id, {
      nodes: [{ id: "x", type: "sink_db", config: { conn_id: "c", table: "t", mode: "upsert" } }],
    });
    expect(proposed.valid).toBe(false);
    expect(proposed.nodes[0]?.errors.join()).toMatch(/conflict_key/);
    const one = await t.client.pipelines.validateNodes(p.id, { node_ids: ["out"] });
    expect(one.nodes.map((n) => n.node_id)).toEqual(["out"]);
    expect(
      (await t.fetch(`/pipelines/${p.id}/validate-nodes`, { method: "POST", json: { node_ids: ["zz"] } })).status,
    ).toBe(404);
  });

  it(`${dialect}: bulk enable, disable and delete report per-id results`, async () => {
    const a = await t.client.pipelines.create({ name: "bulk-a" });
    const b = await t.client.pipelines.create({ name: "bulk-b" });
    const disabled = await t.client.pipelines.bulk({ action: "disable", ids: [a.id, b.id, "missing"] });
    expect(disabled).toMatchObject({ action: "disable", succeeded: [a.id, b.id], failed: ["missing"] });
    expect(disabled.errors[0]?.id).toBe("missing");
    expect((await t.client.pipelines.get(a.id)).enabled).toBe(false);
    const deleted = await t.client.pipelines.bulk({ action: "delete", ids: [a.id, b.id] });
    expect(deleted.succeeded).toEqual([a.id, b.id]);
    expect((await t.fetch(`/pipelines/${a.id}`)).status).toBe(404);
    expect((await t.fetch("/pipelines/bulk", { method: "POST", json: { action: "explode", ids: ["x"] } })).status).toBe(
      400,
    );
    expect((await t.fetch("/pipelines/bulk", { method: "POST", json: { action: "delete", ids: [] } })).status).toBe(
      400,
    );
  });

  it(`${dialect}: system info reports every spec field from the real database`, async () => {
    const info = await t.client.system.info();
    expect(info).toMatchObject({ version: "0.1.0", max_concurrent_runs: 8, active_runs: 0, store: dialect });
    expect(info.db_size).toBeGreaterThan(0);
    expect(info.db_size_mb).toBe((info.db_size / 1048576).toFixed(2));
    expect(info.pipelines).toBe((await t.client.pipelines.list()).length);
  });

  it(`${dialect}: the client surfaces status and error text`, async () => {
    const err = await t.client.pipelines.get("nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SluiceApiError);
    expect((err as SluiceApiError).status).toBe(404);
    expect((err as SluiceApiError).message).toMatch(/pipeline 'nope' not found/);
  });
});

describe("lineage and impact over HTTP", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  it("derives the graph and downstream pipelines from stored node configs", async () => {
    const writer = await t.client.pipelines.create({
      name: "writer",
      nodes: [{ id: "w", type: "sink_db", config: { conn_id: "dwh", table: "facts" } }],
    });
    const reader = await t.client.pipelines.create({
      name: "reader",
      nodes: [{ id: "r", type: "source_db", config: { conn_id: "dwh", query: "select * from facts" } }],
    });
    const dependent = await t.client.pipelines.create({ name: "dependent", depends_on: [reader.id] });
    const lineage = await (await t.fetch("/lineage")).json();
    expect(lineage.edges).toContainEqual({
      from: `pipeline:${writer.id}`,
      to: "table:dwh/facts",
      pipeline_id: writer.id,
    });
    expect(lineage.edges).toContainEqual({
      from: "table:dwh/facts",
      to: `pipeline:${reader.id}`,
      pipeline_id: reader.id,
    });
    const impact = await (await t.fetch(`/pipelines/${writer.id}/impact`)).json();
    expect(
      impact.downstream.map((d: { pipeline_id: string; via: string; depth: number }) => [
        d.pipeline_id,
        d.via,
        d.depth,
      ]),
    ).toEqual([
      [reader.id, "table", 1],
      [dependent.id, "depends_on", 2],
    ]);
    expect((await t.fetch("/pipelines/missing/impact")).status).toBe(404);
  });
});

describe("summary, dashboard and search over HTTP", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  it("answers with the documented shapes and validates the search query", async () => {
    const p = await t.client.pipelines.create({ name: "Searchable Thing" });
    const summary = await (await t.fetch("/pipelines/summary")).json();
    expect(summary).toEqual([
      expect.objectContaining({ id: p.id, last_run_status: null, runs_total: 0, runs_success: 0, runs_failed: 0 }),
    ]);
    const dashboard = await (await t.fetch("/dashboard")).json();
    expect(Object.keys(dashboard)).toEqual(
      expect.arrayContaining(["pipelines", "recent_runs", "trends", "top_failing"]),
    );
    expect(dashboard.trends).toHaveLength(7);
    const search = await (await t.fetch("/search?q=searchable")).json();
    expect(search).toEqual([{ type: "pipeline", id: p.id, name: "Searchable Thing", description: "" }]);
    expect((await t.fetch("/search")).status).toBe(400);
    expect((await t.fetch("/search?q=")).status).toBe(400);
    expect((await t.fetch("/search?q=x&limit=abc")).status).toBe(400);
    expect((await t.fetch("/search?q=x&limit=1000")).status).toBe(200);
  });
});
