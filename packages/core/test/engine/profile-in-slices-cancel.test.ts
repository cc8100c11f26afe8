import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dataSetFromRows, defineNodeType, type Row } from "../../src/index.js";
import { pollUntil } from "../../../../test-support/poll.js";
import { FIXTURE_NODE_TYPES } from "./fixture-node-types.js";
import { runEnded, startTestSluice } from "./test-sluice.js";

const COLUMNS = ["a", "b", "c", "d", "e", "f", "g", "h"];

/** A node that makes `rows` rows of eight columns at once: profiling its output is most of its run's work. */
const wide = defineNodeType({
  type: "wide",
  configSchema: z.looseObject({ rows: z.number() }),
  async run(_ctx, config) {
    const rows: Row[] = [];
    for (let i = 0; i < config.rows; i++)
      rows.push({ a: i, b: `v${i}`, c: i * 0.5, d: i % 3 ? "x" : null, e: `w${i % 1000}`, f: i, g: `z${i}`, h: i % 7 });
    return { output: dataSetFromRows(rows, COLUMNS) };
  },
});

describe("a large output's profile, made in slices", () => {
  it("a cancel while it is made ends the node cancelled, not succeeded after the run was cancelled", async () => {
    const sluice = await startTestSluice("sqlite", { nodeTypes: { ...FIXTURE_NODE_TYPES, wide } });
    const pipeline = await sluice.pipelines.create({
      name: "300,000 rows made at once",
      nodes: [{ id: "w", type: "wide", config: { rows: 300_000 } }],
      edges: [],
    });
    const { id } = await sluice.runs.trigger(pipeline.id);
    // the node makes its rows without a pause, so its start is written (and seen) only once its profile, in
    // slices, gives the loop a turn
    const running = await pollUntil(
      async () =>
        (await sluice.runs.get(id)).node_runs.find((n) => n.node_id === "w")?.status === "running" ? true : undefined,
      { everyMs: 5 },
    );
    expect(running).toBe(true);
    await sluice.runs.cancel(id);
    expect((await runEnded(sluice, id)).status).toBe("cancelled");
    // the cancel moves the run at once; the node ends at the profile's next slice
    const node = await pollUntil(async () => {
      const now = (await sluice.runs.get(id)).node_runs.find((n) => n.node_id === "w");
      return now?.status === "running" ? undefined : now;
    });
    expect(node?.status).toBe("cancelled");
    expect(node?.error).toMatch(/cancelled/);
  });
});
