import { describe, expect, it } from "vitest";
import { unionNode } from "../../../src/engine/nodes/union.js";
import { unionConfig } from "../../../src/engine/nodes/union.js";
import { nodeContext } from "../peer-server.js";

describe("union", () => {
  it("concatenates inputs in order, unifying columns by name with nulls for missing ones", async () => {
    const { ctx } = nodeContext("union");
    const { output } = await unionNode.run(ctx, unionConfig.parse({}), [
      { columns: ["id", "a"], rows: [{ id: 1, a: "x" }] },
      {
        columns: ["b", "id"],
        rows: [
          { b: true, id: 2 },
          { b: false, id: 3 },
        ],
      },
      { columns: [], rows: [] },
    ]);
    expect(output.columns).toEqual(["id", "a", "b"]);
    expect(output.rows).toEqual([
      { id: 1, a: "x", b: null },
      { id: 2, a: null, b: true },
      { id: 3, a: null, b: false },
    ]);
  });

  it("returns an empty data set for no inputs", async () => {
    const { ctx } = nodeContext("union");
    expect((await unionNode.run(ctx, {}, [])).output).toEqual({ columns: [], rows: [] });
  });
});
