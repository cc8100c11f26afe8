import { describe, expect, it } from "vitest";
import { buildLineage } from "../../src/insights/lineage.js";
import { computeImpact } from "../../src/insights/impact.js";
import { nodeReferences } from "../../src/insights/node-references.js";
import type { Pipeline } from "../../src/model/pipeline.js";

function pipeline(id: string, nodes: Pipeline["nodes"], depends_on: string[] = []): Pipeline {
  return {
    id,
    name: `P ${id}`,
    description: "",
    schedule: null,
    schedule_timezone: null,
    enabled: true,
    tags: [],
    params: {},
    nodes,
    edges: [],
    hooks: [],
    depends_on,
    sla_deadline: null,
    sla_timezone: null,
    webhook_token: null,
    parallelism: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
  };
}

const ingest = pipeline("ingest", [
  {
    id: "api",
    type: "source_api",
    config: { url: "https://api.example.test/v1/orders?page=1", headers: { authorization: "Bearer ${var.API_TOKEN}" } },
  },
  { id: "load", type: "sink_db", config: { conn_id: "dwh", table: "raw_orders", mode: "insert" } },
]);
const model = pipeline("model", [
  {
    id: "read",
    type: "source_db",
    config: { conn_id: "dwh", query: "select o.* from raw_orders o join public.customers c on c.id = o.cid" },
  },
  { id: "write", type: "sink_db", config: { conn_id: "dwh", table: "orders_clean" } },
]);
const report = pipeline("report", [
  { id: "read", type: "source_db", config: { conn_id: "dwh", query: "SELECT * FROM orders_clean" } },
  { id: "file", type: "sink_file", config: { path: "/data/report.csv" } },
]);
const other = pipeline("other", [
  { id: "read", type: "source_db", config: { conn_id: "shop", query: "select * from raw_orders" } },
]);
const audit = pipeline("audit", [], ["report"]);

describe("node references", () => {
  it("reads tables from FROM/JOIN, writes from sink_db and migrate DDL, and finds variables", () => {
    expect(nodeReferences(model.nodes[0]!).tablesRead).toEqual([
      { conn_id: "dwh", table: "raw_orders" },
      { conn_id: "dwh", table: "public.customers" },
    ]);
    expect(
      nodeReferences({
        type: "migrate",
        config: { conn_id: "dwh", sql: 'CREATE TABLE IF NOT EXISTS "Events" (id int); ALTER TABLE logs ADD x int' },
      }).tablesWritten,
    ).toEqual([
      { conn_id: "dwh", table: "events" },
      { conn_id: "dwh", table: "logs" },
    ]);
    expect(nodeReferences(ingest.nodes[0]!)).toMatchObject({
      apisRead: ["https://api.example.test/v1/orders"],
      variables: ["API_TOKEN"],
    });
  });
});

describe("lineage", () => {
  it("connects what pipelines read and write across pipelines", () => {
    const graph = buildLineage([ingest, model, report]);
    const has = (from: string, to: string) => graph.edges.some((e) => e.from === from && e.to === to);
    expect(has("pipeline:ingest", "table:dwh/raw_orders")).toBe(true);
    expect(has("table:dwh/raw_orders", "pipeline:model")).toBe(true);
    expect(has("pipeline:model", "table:dwh/orders_clean")).toBe(true);
    expect(has("table:dwh/orders_clean", "pipeline:report")).toBe(true);
    expect(has("pipeline:report", "file:/data/report.csv")).toBe(true);
    expect(has("variable:API_TOKEN", "pipeline:ingest")).toBe(true);
    expect(has("connection:dwh", "pipeline:model")).toBe(true);
    expect(graph.nodes.find((n) => n.id === "table:dwh/raw_orders")).toEqual({
      id: "table:dwh/raw_orders",
      type: "table",
      name: "dwh.raw_orders",
    });
    expect(new Set(graph.nodes.map((n) => n.id)).size).toBe(graph.nodes.length);
  });
});

describe("impact", () => {
  it("is transitive through shared tables and depends_on, only on the same connection", () => {
    const impact = computeImpact("ingest", [ingest, model, report, other, audit]);
    expect(impact).toEqual({
      pipeline_id: "ingest",
      downstream: [
        { pipeline_id: "model", name: "P model", depth: 1, via: "table", detail: "dwh.raw_orders" },
        { pipeline_id: "report", name: "P report", depth: 2, via: "table", detail: "dwh.orders_clean" },
        { pipeline_id: "audit", name: "P audit", depth: 3, via: "depends_on", detail: "report" },
      ],
    });
  });

  it("a pipeline nobody uses has no downstream; cycles terminate", () => {
    expect(computeImpact("report", [report]).downstream).toEqual([]);
    const a = pipeline("a", [], ["b"]);
    const b = pipeline("b", [], ["a"]);
    expect(computeImpact("a", [a, b]).downstream.map((d) => d.pipeline_id)).toEqual(["b"]);
  });
});
