import { describe, expect, it } from "vitest";
import { conditionNode } from "../../../src/engine/nodes/condition.js";
import { conditionConfig } from "../../../src/engine/nodes/condition.js";
import { dataSetFromRows } from "../../../src/engine/dataset.js";
import { nodeContext } from "../peer-server.js";

const input = dataSetFromRows([
  { amount: 10, status: "ok" },
  { amount: 30, status: "ok" },
  { amount: null, status: "late" },
]);

const check = async (expression: string, params: Record<string, string> = {}) => {
  const { ctx } = nodeContext("condition", { params });
  return { result: await conditionNode.run(ctx, conditionConfig.parse({ expression }), [input]) };
};

describe("condition", () => {
  it("passes its input through and lets downstream run when true", async () => {
    const { result } = await check("row_count == 3 && sum.amount == 40 && max.amount > 25 && 'status' in columns");
    expect(result.skipDownstream).toBe(false);
    expect(result.output).toBe(input);
    expect(result.summary).toMatch(/is true: downstream nodes run$/);
  });

  it("marks downstream skipped when false, and says so in its summary", async () => {
    const { result } = await check("avg.amount > 100");
    expect(result.skipDownstream).toBe(true);
    expect(result.summary).toMatch(/is false: downstream nodes are skipped$/);
  });

  it("sees min, count, rows, first and params", async () => {
    expect((await check("min.amount == 10 && count.amount == 2 && count.status == 3")).result.skipDownstream).toBe(
      false,
    );
    expect((await check('rows[2].status == "late" && first.amount == 10')).result.skipDownstream).toBe(false);
    expect((await check("row_count >= params.min|number", { min: "5" })).result.skipDownstream).toBe(true);
  });

  it("fails on an invalid expression", async () => {
    await expect(check("row_count >")).rejects.toThrow(/invalid expression/);
    expect(conditionConfig.safeParse({}).success).toBe(false);
  });

  it('aggregates a column named "__proto__" like any other', async () => {
    const data = dataSetFromRows([JSON.parse('{"__proto__": 5, "n": 1}'), JSON.parse('{"__proto__": 7, "n": 2}')]);
    const { ctx } = nodeContext("condition");
    const config = conditionConfig.parse({ expression: 'sum["__proto__"] == 12 && count["__proto__"] == 2' });
    expect((await conditionNode.run(ctx, config, [data])).skipDownstream).toBe(false);
  });
});
