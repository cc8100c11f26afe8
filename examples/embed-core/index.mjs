// Embeds Sluice in a Node process: create, update and list pipelines without any HTTP server.
// Run: node examples/embed-core/index.mjs [database]   (default: a temporary SQLite file)
import os from "node:os";
import path from "node:path";
import { createSluice } from "@sluice/core";

export async function main(database = path.join(os.tmpdir(), `sluice-example-${process.pid}.db`)) {
  const sluice = await createSluice({ database });
  try {
    await sluice.start();
    const pipeline = await sluice.pipelines.create({
      name: "nightly orders",
      schedule: "0 2 * * *",
      nodes: [
        { id: "src", type: "source_db", config: { conn_id: "shop", query: "select * from orders" } },
        { id: "out", type: "sink_file", config: { path: "orders.csv", format: "csv" } },
      ],
      edges: [{ from: "src", to: "out" }],
    });
    await sluice.pipelines.update(pipeline.id, { enabled: false });
    const lines = (await sluice.pipelines.versions(pipeline.id)).map((v) => `v${v.version}: ${v.message}`);
    return lines;
  } finally {
    await sluice.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await main(process.argv[2])) console.log(line);
}
