import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, tempDir, testDialects, type TestDatabase } from "../../../test-support/databases.js";
import { connectionFor } from "../../../test-support/connections.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

/*
 * Column names come from data (a CSV header, an API's JSON, a table). Rows need not all have every column. Names
 * that are also members of every JavaScript object — "constructor", "toString", "__proto__" — must behave like any
 * other: a row that lacks one has null there, not the inherited member (a function, or Object.prototype), and a
 * "__proto__" column is a column, not a row's prototype. Before, such a row crashed the server in sink_file's CSV
 * writer, wrote function source text into PostgreSQL, and failed the write on SQLite and MySQL.
 */
const ROWS = '[{"id":1,"name":"a","constructor":"c1","toString":"t1","__proto__":"p1"},{"id":2,"name":"b"}]';
const source = { id: "src", type: "code", config: { code: `return JSON.parse(${JSON.stringify(ROWS)});` } };
const dialects = await testDialects();

let t: TestServer;
let root: string;
beforeAll(async () => {
  root = tempDir();
  t = await startTestServer("sqlite", { fileRoots: [root] });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function run(body: Record<string, unknown>, server = t) {
  const p = (await (await server.fetch("/pipelines", { method: "POST", json: body })).json()) as { id: string };
  const started = await server.fetch(`/pipelines/${p.id}/run`, { method: "POST", json: {} });
  const { id } = (await started.json()) as { id: string };
  return server.client.runs.wait(id, { timeoutMs: 30_000 });
}
const preview = async (runId: string, node: string, server = t) =>
  (await (await server.fetch(`/runs/${runId}/nodes/${node}/preview`)).json()) as {
    columns: string[];
    rows: Record<string, unknown>[];
  };

describe("columns named like JavaScript object members", () => {
  it("pass through sink_file CSV, transform rules, quality and sql as ordinary columns", async () => {
    const finished = await run({
      name: "row keys",
      nodes: [
        source,
        { id: "csv", type: "sink_file", config: { path: "out.csv" } },
        {
          id: "rules",
          type: "transform",
          config: {
            rules: [
              { type: "select", columns: ["id", "constructor", "__proto__"] },
              { type: "fill_null", columns: ["constructor"], value: "filled" },
              { type: "cast", column: "__proto__", to: "string" },
            ],
          },
        },
        {
          id: "check",
          type: "quality",
          config: { on_failure: "warn", checks: [{ type: "not_null", column: "toString" }] },
        },
        {
          id: "q",
          type: "sql",
          config: { sql: 'select count(*) as n from input where "constructor" is null and "__proto__" is null' },
        },
      ],
      edges: [
        { from: "src", to: "csv" },
        { from: "src", to: "rules" },
        { from: "src", to: "check" },
        { from: "src", to: "q" },
      ],
    });
    expect(finished.status, JSON.stringify(finished)).toBe("success");
    expect(fs.readFileSync(path.join(root, "out.csv"), "utf8")).toBe(
      "id,name,constructor,toString,__proto__\n1,a,c1,t1,p1\n2,b,,,\n",
    );
    const rules = await preview(finished.id, "rules");
    // JSON, not object literals: `{ __proto__: … }` in a literal sets the prototype
    expect(rules.rows).toEqual(
      JSON.parse('[{"id":1,"constructor":"c1","__proto__":"p1"},{"id":2,"constructor":"filled","__proto__":null}]'),
    );
    const logs = (await (await t.fetch(`/runs/${finished.id}/logs?node_id=check`)).json()) as { message: string }[];
    expect(logs.some((l) => /not_null\(toString\)/.test(l.message) && /1 row/.test(l.message))).toBe(true);
    expect((await preview(finished.id, "q")).rows).toEqual([{ n: 1 }]);
  });

  describe.each(dialects)("sink_db and source_db on %s", (dialect) => {
    let target: TestDatabase;
    // a server without file roots: they would confine a SQLite connection's path too
    let d: TestServer;
    beforeAll(async () => {
      d = await startTestServer("sqlite");
      target = await createTestDatabase(dialect);
      const res = await d.fetch("/connections", { method: "POST", json: connectionFor(`rk-${dialect}`, target) });
      expect(res.status).toBe(201);
    });
    afterAll(async () => {
      await d?.close();
      await target?.drop();
    });

    it("writes null for a missing column and reads a __proto__ column back as a column", async () => {
      const q = (name: string) => (dialect === "mysql" ? `\`${name}\`` : `"${name}"`);
      const conn_id = `rk-${dialect}`;
      const written = await run(
        {
          name: `row keys to ${dialect}`,
          nodes: [source, { id: "write", type: "sink_db", config: { conn_id, table: "rowkeys" } }],
          edges: [{ from: "src", to: "write" }],
        },
        d,
      );
      expect(written.status, JSON.stringify(written)).toBe("success");
      const nulls = ["constructor", "toString", "__proto__"].map((c) => `${q(c)} is null`).join(" and ");
      const read = await run(
        {
          name: `row keys from ${dialect}`,
          nodes: [
            {
              id: "missing",
              type: "source_db",
              config: { conn_id, query: `select count(*) as n from rowkeys where id = 2 and ${nulls}` },
            },
            {
              id: "kept",
              type: "source_db",
              config: { conn_id, query: `select count(*) as n from rowkeys where id = 1 and ${q("__proto__")} = 'p1'` },
            },
            // mysql2 refuses a result column named __proto__ (a clean error): read it back where the driver allows
            ...(dialect === "mysql"
              ? []
              : [{ id: "all", type: "source_db", config: { conn_id, query: "select * from rowkeys order by id" } }]),
          ],
          edges: [],
        },
        d,
      );
      expect(read.status, JSON.stringify(read)).toBe("success");
      expect(Number((await preview(read.id, "missing", d)).rows[0]?.n)).toBe(1);
      expect(Number((await preview(read.id, "kept", d)).rows[0]?.n)).toBe(1);
      if (dialect !== "mysql") {
        const all = await preview(read.id, "all", d);
        expect(all.columns).toContain("__proto__");
        expect(all.rows.map((r) => [r.id, r.constructor, r.__proto__].map(String))).toEqual([
          ["1", "c1", "p1"],
          ["2", "null", "null"],
        ]);
      }
    });
  });
});
