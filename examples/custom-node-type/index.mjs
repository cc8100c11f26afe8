// A custom node type: defined with defineNodeType, registered with createSluice({ nodeTypes }) beside the built-in
// ones, used in a pipeline created over the HTTP API (the client builder's `node()`), and run to success.
// Run: node examples/custom-node-type/index.mjs [database]   (default: a temporary SQLite file)
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { createSluice, dataSetFromRows, defineNodeType } from "@sluice/core";
import { startServer } from "@sluice/server-koa";
import { SluiceClient, definePipeline, node, transform } from "@sluice/client";

const DAY_MS = 86_400_000;

/** `date_range`: one row per day from `start` to `end` (inclusive, YYYY-MM-DD) with its ISO weekday (1 = Monday). */
export const dateRange = defineNodeType({
  type: "date_range",
  configSchema: z.looseObject({ start: z.string().min(1), end: z.string().min(1) }),
  // a source with no effects outside the run (a dry run executes it) and nothing to declare for lineage
  async run(ctx, config) {
    const start = Date.parse(`${await ctx.render(config.start)}T00:00:00Z`);
    const end = Date.parse(`${await ctx.render(config.end)}T00:00:00Z`);
    if (Number.isNaN(start) || Number.isNaN(end)) throw new Error("start and end must be dates (YYYY-MM-DD)");
    const rows = [];
    for (let t = start; t <= end; t += DAY_MS) {
      const day = new Date(t);
      rows.push({ day: day.toISOString().slice(0, 10), weekday: day.getUTCDay() || 7 });
    }
    // the engine's one log line for the node ends with it: "completed: 7 rows in 0 ms; 7 days from 2026-03-01"
    return { output: dataSetFromRows(rows), summary: `${rows.length} days from ${rows[0]?.day ?? "-"}` };
  },
});

export async function main(database = path.join(os.tmpdir(), `sluice-custom-node-${process.pid}.db`)) {
  const sluice = await createSluice({ database, nodeTypes: { date_range: dateRange } });
  await sluice.start();
  const server = await startServer(sluice, { host: "127.0.0.1", port: 0 });
  try {
    const client = new SluiceClient({ baseUrl: server.url });
    const days = node("date_range", "days", { start: "${param.month}-01", end: "${param.month}-07" });
    const workdays = transform("workdays", { rules: [{ type: "filter", expression: "weekday <= 5" }] });
    days.to(workdays);
    const pipeline = await client.pipelines.create(
      definePipeline({ name: "example: workdays", params: { month: "2026-03" }, nodes: [days, workdays] }),
    );
    const accepted = await client.runs.trigger(pipeline.id);
    const run = await client.runs.wait(accepted.id, { timeoutMs: 30_000 });
    const preview = await client.runs.preview(run.id, "workdays");
    return { status: run.status, rows: preview.rows };
  } finally {
    await server.close();
    await sluice.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { status, rows } = await main(process.argv[2]);
  console.log(`run ${status}:`, rows);
}
