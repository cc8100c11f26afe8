/**
 * The attack (found by a helper on 2026-11-27): a `join` on a key repeated on both sides multiplies rows, and one
 * process runs every pipeline. 8,000 × 8,000 rows on one key made 64 million rows on the server's thread (45 s), then
 * ended the server out of memory, and every run with it; unions of unions doubled the same way. A typo in a join key
 * is enough. Now the rows are counted before any is built, and more than `max_output_rows` fails the node.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_OUTPUT_ROWS } from "../../../core/src/engine/nodes/config-parts.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline } from "./attack-support.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

const oneKey = (n: number) =>
  `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) select 1 as k, i from s`;

describe("attack: nodes that multiply rows", () => {
  it("a join on a key repeated on both sides fails before it builds its rows", async () => {
    // 1,500 × 1,500 rows on one key: 2,250,000 rows, past the default of 2,000,000
    const side = Math.ceil(Math.sqrt(DEFAULT_MAX_OUTPUT_ROWS + 1));
    const { run } = await runPipeline(t, {
      name: "cartesian join",
      nodes: [
        { id: "a", type: "sql", config: { sql: oneKey(side) } },
        { id: "b", type: "sql", config: { sql: oneKey(side) } },
        { id: "j", type: "join", config: { on: "k" } },
      ],
      edges: [
        { from: "a", to: "j" },
        { from: "b", to: "j" },
      ],
    });
    expect(run.status).toBe("failed");
    const error = run.node_runs.find((n) => n.node_id === "j")?.error ?? "";
    expect(error).toContain(
      `would make up to ${side * side} rows, more than max_output_rows (${DEFAULT_MAX_OUTPUT_ROWS})`,
    );
  });

  it("a sql node's own join is bounded the same way, as its rows come", async () => {
    const { run } = await runPipeline(t, {
      name: "cartesian sql",
      nodes: [
        { id: "a", type: "sql", config: { sql: oneKey(2000) } },
        { id: "q", type: "sql", config: { sql: "select * from a x, a y" } },
      ],
      edges: [{ from: "a", to: "q" }],
    });
    expect(run.status).toBe("failed");
    expect(run.node_runs.find((n) => n.node_id === "q")?.error).toBe(
      `sql: the query returned more than max_output_rows (${DEFAULT_MAX_OUTPUT_ROWS}) rows`,
    );
  });

  it("a sql node's rows are bounded in size too, as they come (large rows, few of them)", async () => {
    // 40 rows of 100,000 characters: 4 MB, past a bound of 2 MB; the default (512 MB) is the same check
    const big = `with recursive s(i) as (select 1 union all select i + 1 from s where i < 40)
      select i, printf('%.*c', 100000, 'x') as big from s`;
    const { run } = await runPipeline(t, {
      name: "large rows",
      nodes: [{ id: "q", type: "sql", config: { sql: big, max_output_mb: 2 } }],
      edges: [],
    });
    expect(run.status).toBe("failed");
    expect(run.node_runs[0]?.error).toBe("sql: the query returned more than max_output_mb (2 MB) of data");
  });

  it("a code node's output is bounded in size too, before the server parses it", async () => {
    const { run } = await runPipeline(t, {
      name: "large code rows",
      nodes: [
        {
          id: "c",
          type: "code",
          config: {
            max_output_mb: 2,
            code: "const big = 'x'.repeat(100000); return Array.from({ length: 40 }, (_, i) => ({ i, big }));",
          },
        },
      ],
      edges: [],
    });
    expect(run.status).toBe("failed");
    expect(run.node_runs[0]?.error).toBe("code returned more than max_output_mb (2 MB) of data");
  });

  it("max_output_rows bounds a join and a union as configured", async () => {
    const { run } = await runPipeline(t, {
      name: "bounded",
      nodes: [
        { id: "a", type: "sql", config: { sql: oneKey(30) } },
        { id: "b", type: "sql", config: { sql: oneKey(30) } },
        { id: "j", type: "join", config: { on: "k", how: "left", max_output_rows: 900 } },
        { id: "u", type: "union", config: { max_output_rows: 50 } },
      ],
      edges: [
        { from: "a", to: "j" },
        { from: "b", to: "j" },
        { from: "a", to: "u" },
        { from: "b", to: "u" },
      ],
    });
    expect(run.status).toBe("failed");
    expect(run.node_runs.find((n) => n.node_id === "j")?.status).toBe("success");
    expect(run.node_runs.find((n) => n.node_id === "u")?.error).toBe(
      "union would make 60 rows, more than max_output_rows (50)",
    );
  });
});
