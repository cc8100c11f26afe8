import { describe, expect, it } from "vitest";
import { nodeConfigErrors } from "../../../src/dag/validate-pipeline.js";
import { NODE_TYPE_REGISTRY } from "../../../src/engine/nodes/index.js";
import { NODE_TYPES } from "../../../src/model/node.js";

const check = (type: string, config: Record<string, unknown>) =>
  nodeConfigErrors({ id: "n1", type, config }).join("\n");

describe("node config validation (the schema each node type runs with)", () => {
  it("the registry holds every built-in type under its own name, with its effects flag", () => {
    expect(Object.keys(NODE_TYPE_REGISTRY).sort()).toEqual([...NODE_TYPES].sort());
    for (const [name, def] of Object.entries(NODE_TYPE_REGISTRY)) expect(def.type).toBe(name);
    const withEffects = Object.values(NODE_TYPE_REGISTRY)
      .filter((d) => d.effects)
      .map((d) => d.type);
    expect(withEffects.sort()).toEqual(["migrate", "notify", "sink_api", "sink_db", "sink_file"]);
  });

  it("validation reads the schema a type runs with (an unknown type is reported, not thrown)", () => {
    expect(check("union", { timeout: 0 })).toMatch(/timeout/);
    expect(check("no_such_type", {})).toMatch(/unknown node type 'no_such_type'/);
  });

  it("reports missing and wrong keys per node", () => {
    expect(check("source_api", {})).toMatch(/url or conn_id is required/);
    expect(check("source_api", { url: "http://127.0.0.1/x", offset_param: "o" })).toMatch(
      /page_size is required with offset_param/,
    );
    expect(check("source_api", { url: "http://127.0.0.1/x", max_pages: 0 })).toMatch(/max_pages/);
    expect(check("source_file", { format: "csv" })).toMatch(/path is required/);
    expect(check("sql", {})).toMatch(/sql is required/);
    expect(check("code", {})).toMatch(/code is required/);
    expect(check("code", { code: "return rows", memory_mb: 1 })).toMatch(/memory_mb/);
    expect(check("condition", {})).toMatch(/expression is required/);
    expect(check("sink_api", { url: "http://127.0.0.1/x", batch_size: 0 })).toMatch(/batch_size/);
    expect(check("notify", { message: "hi" })).toMatch(/url or conn_id is required/);
    expect(check("notify", { url: "http://127.0.0.1/x", headers: { a: 1 } })).toMatch(/headers/);
  });

  it("accepts complete configs", () => {
    expect(
      check("source_api", { conn_id: "api", path: "/x", rows_path: "data", page_param: "page", page_size: 10 }),
    ).toBe("");
    expect(check("source_file", { path: "a.csv", delimiter: ";", header: false })).toBe("");
    expect(check("union", {})).toBe("");
    expect(check("sql", { query: "SELECT 1" })).toBe("");
    expect(check("code", { code: "return rows", memory_mb: 64, timeout: 5 })).toBe("");
    expect(check("condition", { expression: "row_count > 0" })).toBe("");
    expect(check("sink_api", { url: "http://127.0.0.1/x", batch_size: 10, method: "PUT" })).toBe("");
    expect(check("notify", { url: "http://127.0.0.1/x", format: "slack", message: "{{row_count}}" })).toBe("");
  });
});
