import { describe, expect, it } from "vitest";
import { sqlNode } from "../../../src/engine/nodes/sql.js";
import { sqlConfig } from "../../../src/engine/nodes/sql.js";
import { dataSetFromRows } from "../../../src/engine/dataset.js";
import { nodeContext } from "../peer-server.js";

const orders = dataSetFromRows([
  { id: 1, customer: "ann", amount: 10.5, paid: true, meta: { k: 1 } },
  { id: 2, customer: "bob", amount: 4, paid: false, meta: null },
  { id: 3, customer: "ann", amount: 7.25, paid: true, meta: null },
]);
const customers = dataSetFromRows([
  { name: "ann", city: "Oslo" },
  { name: "bob", city: "Rome" },
]);

describe("sql", () => {
  it("queries a single input as `input` and by its upstream node id, keeping types", async () => {
    const { ctx } = nodeContext("sql", { inputIds: ["orders-src"] });
    const { output } = await sqlNode.run(
      ctx,
      sqlConfig.parse({ sql: "SELECT id, amount, paid, meta, typeof(amount) AS t FROM input ORDER BY id" }),
      [orders],
    );
    expect(output.columns).toEqual(["id", "amount", "paid", "meta", "t"]);
    expect(output.rows).toEqual([
      { id: 1, amount: 10.5, paid: 1, meta: '{"k":1}', t: "real" },
      { id: 2, amount: 4, paid: 0, meta: null, t: "real" },
      { id: 3, amount: 7.25, paid: 1, meta: null, t: "real" },
    ]);
    const byId = await sqlNode.run(ctx, sqlConfig.parse({ query: 'SELECT count(*) AS n FROM "orders-src"' }), [orders]);
    expect(byId.output.rows).toEqual([{ n: 3 }]);
  });

  it("joins several inputs named after their upstream nodes and binds params", async () => {
    const { ctx } = nodeContext("sql", { inputIds: ["orders", "customers"], params: { city: "Oslo" } });
    const sql =
      "SELECT c.city, sum(o.amount) AS total, count(*) AS n FROM orders o JOIN customers c ON c.name = o.customer " +
      "WHERE c.city = ${param.city} GROUP BY c.city";
    const { output } = await sqlNode.run(ctx, sqlConfig.parse({ sql }), [orders, customers]);
    expect(output.rows).toEqual([{ city: "Oslo", total: 17.75, n: 2 }]);
  });

  it("keeps a hostile param a value, never SQL", async () => {
    const { ctx } = nodeContext("sql", { inputIds: ["orders"], params: { who: "x' OR '1'='1" } });
    const { output } = await sqlNode.run(
      ctx,
      sqlConfig.parse({ sql: "SELECT id FROM orders WHERE customer = '${param.who}'" }),
      [orders],
    );
    expect(output.rows).toEqual([]);
  });

  it("fails clearly on bad SQL and validation requires sql", async () => {
    const { ctx } = nodeContext("sql", { inputIds: ["orders"] });
    await expect(sqlNode.run(ctx, sqlConfig.parse({ sql: "SELEKT 1" }), [orders])).rejects.toThrow(/sql failed/);
    expect(sqlConfig.safeParse({}).success).toBe(false);
  });
});
