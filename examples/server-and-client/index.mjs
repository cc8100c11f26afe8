// A client script against a running Sluice server: create a pipeline, run it, follow it to the end.
// Run: npm start   (in another terminal), then: node examples/server-and-client/index.mjs [http://localhost:8080]
// With users or API keys enabled, set SLUICE_API_KEY.
import { SluiceClient } from "@sluice/client";

export async function main(baseUrl = "http://localhost:8080", apiKey = process.env.SLUICE_API_KEY) {
  const client = new SluiceClient({ baseUrl, apiKey });
  const pipeline = await client.pipelines.apply({
    name: "example: numbers",
    nodes: [
      { id: "numbers", type: "code", config: { code: "return Array.from({ length: 10 }, (_, i) => ({ n: i + 1 }));" } },
      {
        id: "odd",
        type: "transform",
        config: {
          rules: [
            { type: "filter", expression: "n % 2 == 1" },
            { type: "add_column", name: "square", expression: "n * n" },
          ],
        },
      },
    ],
    edges: [{ from: "numbers", to: "odd" }],
  });
  const accepted = await client.runs.trigger(pipeline.pipeline.id);
  const run = await client.runs.wait(accepted.id, { timeoutMs: 30_000 });
  const preview = await client.runs.preview(run.id, "odd");
  return { status: run.status, rows: preview.rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { status, rows } = await main(process.argv[2]);
  console.log(`run ${status}:`, rows);
}
