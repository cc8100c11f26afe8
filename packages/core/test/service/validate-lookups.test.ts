import { expect, it, vi } from "vitest";
import { storeOf } from "../../src/service/create-sluice.js";
import { startTestSluice } from "../engine/test-sluice.js";

/*
 * GET /validate names the connections and variables a pipeline references that do not exist. It looked each up once
 * per node naming it: 500 nodes naming the same 10 variables made 5,000 lookups, which on SQLite held the server for
 * a quarter of a second (found by a helper's sweep).
 */
it("validate looks each referenced connection and variable up once, however many nodes name it", async () => {
  const sluice = await startTestSluice("sqlite");
  const nodes = Array.from({ length: 50 }, (_, i) => ({
    id: `n${i}`,
    type: "source_db",
    config: { conn_id: "missing_db", query: "select * from ${var.missing_table} where a = '${var.other}'" },
  }));
  const p = await sluice.pipelines.create({ name: "many references", nodes, edges: [] });
  const store = storeOf(sluice);
  const variables = vi.spyOn(store.variables, "get");
  const connections = vi.spyOn(store.connections, "get");
  const result = await sluice.pipelines.validate(p.id);
  expect(variables.mock.calls.map(([key]) => key).sort()).toEqual(["missing_table", "other"]);
  expect(connections.mock.calls.map(([id]) => id)).toEqual(["missing_db"]);
  expect(result.errors).toHaveLength(150);
  expect(result.errors.slice(0, 3)).toEqual([
    "node 'n0': connection 'missing_db' does not exist",
    "node 'n0': variable 'missing_table' does not exist (${var.missing_table})",
    "node 'n0': variable 'other' does not exist (${var.other})",
  ]);
});
