import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline } from "./attack-support.js";

/*
 * The attack (found by a helper's black-box test): an editor's query returns one huge value — a 30 MB blob, a text
 * of millions of characters. Previews, profiles, dry runs and DLQ payloads used to turn it into JSON on the server's
 * thread (a Buffer as an array of numbers, three to four times its size), store it, and send it to every reader: a
 * viewer re-reading the preview froze the server for seconds each time. What is shown is now bounded.
 */
const BLOB_BYTES = 30_000_000;
const TEXT_CHARS = 3_000_000;
const QUERY = `select zeroblob(${BLOB_BYTES}) as b, printf('%.*c', ${TEXT_CHARS}, 'x') as s, 1 as n, null as z`;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer("sqlite");
  const res = await t.fetch("/connections", {
    method: "POST",
    json: { conn_id: "mem", type: "sqlite", host: ":memory:" },
  });
  expect(res.status, await res.text()).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

const PIPELINE = {
  name: "one huge row",
  nodes: [
    { id: "q", type: "source_db", config: { conn_id: "mem", query: QUERY } },
    { id: "check", type: "quality", config: { on_failure: "dlq", checks: [{ type: "not_null", column: "z" }] } },
  ],
  edges: [{ from: "q", to: "check" }],
};

describe("attack: a query that returns one huge value", () => {
  it("previews, the profile and the DLQ payload show it bounded, and say how large it was", async () => {
    const { run, pipelineId } = await runPipeline(t, PIPELINE);
    expect(run.status, JSON.stringify(run)).toBe("success");
    const preview = await (await t.fetch(`/runs/${run.id}/nodes/q/preview`)).text();
    const profile = await (await t.fetch(`/runs/${run.id}/nodes/q/profile`)).text();
    const dlq = await (await t.fetch(`/pipelines/${pipelineId}/dlq`)).text();
    for (const [what, text] of [
      ["preview", preview],
      ["profile", profile],
      ["dlq", dlq],
    ] as const)
      expect(text.length, what).toBeLessThan(20_000);
    expect(preview).toContain("<binary: 30,000,000 bytes>");
    expect(preview).toContain(`… (3,000,000 characters)`);
    expect(dlq).toContain("<binary: 30,000,000 bytes>");
    const columns = (JSON.parse(profile) as { columns: { name: string; distinct_count: number; max: unknown }[] })
      .columns;
    expect(columns.find((c) => c.name === "b")?.distinct_count).toBe(1);
    expect(String(columns.find((c) => c.name === "s")?.max)).toMatch(/^x{4000}… \(3,000,000 characters\)$/);
  });

  it("a dry run shows it bounded too", async () => {
    const created = await t.fetch("/pipelines", { method: "POST", json: { ...PIPELINE, name: "one huge row, dry" } });
    const { id } = (await created.json()) as { id: string };
    const res = await t.fetch(`/pipelines/${id}/dry-run`, { method: "POST", json: {} });
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    expect(text.length).toBeLessThan(20_000);
    expect(text).toContain("<binary: 30,000,000 bytes>");
  });
});
