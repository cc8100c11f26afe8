/**
 * The attack (found by a helper on 2026-11-27): `transform` rules each writing `[row, row]` double one row's size
 * per rule. The expression budget counted only lists a literal made, not the row read whole, so nothing stopped it:
 * 26 rules (as below) held the server's thread for 24 s, 40 for good (JSON of the row for `deduplicate`), and
 * neither the node's timeout nor a cancel could end it. Now the row read whole is counted; the node fails on its
 * budget.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { waitForRun } from "./attack-support.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

describe("attack: rules that double a row", () => {
  it("fail the node on its budget, and the server keeps answering", async () => {
    const rules = [
      ...Array.from({ length: 26 }, () => ({ type: "add_column", name: "x", expression: "[row, row]" })),
      { type: "deduplicate" },
    ];
    const created = await t.fetch("/pipelines", {
      method: "POST",
      json: {
        name: "doubling",
        nodes: [
          { id: "g", type: "sql", config: { sql: "select 1 as i, 'a' as x" } },
          { id: "t", type: "transform", config: { rules } },
        ],
        edges: [{ from: "g", to: "t" }],
      },
    });
    const { id } = (await created.json()) as { id: string };
    const run = (await (await t.fetch(`/pipelines/${id}/run`, { method: "POST", json: {} })).json()) as { id: string };
    let slowest = 0;
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      expect((await fetch(`${t.baseUrl}/api/health`)).status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
    const done = await waitForRun(t, run.id);
    expect(done.status).toBe("failed");
    expect(done.node_runs.find((n) => n.node_id === "t")?.error).toMatch(/list items/);
    // the count stops at its budget: well under the many seconds (or forever) the doubling held the thread
    expect(slowest).toBeLessThan(5000);
  });
});
