import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionFor } from "../../../../test-support/connections.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";

/*
 * The attack (found by a helper's black-box test): mysql2 quotes bound values on the client, escaping a quote with a
 * backslash. In a session whose sql_mode has NO_BACKSLASH_ESCAPES a backslash is an ordinary character, so a run
 * param (or a webhook caller's) could end its string early and add SQL of its own. Values are now sent as hexadecimal
 * literals, which hold no quote at all.
 */
const PAYLOAD = "'),((select @@version)) -- ";
const TRICKY = ["it's", "back\\slash", "\\'", "ünï €", "", "%_", "what?", "a?b\\c", PAYLOAD];
const mysqlAvailable = (await testDialects()).includes("mysql");

describe.runIf(mysqlAvailable)("attack: SQL through a bound value on MySQL/MariaDB", () => {
  let t: TestServer;
  let target: TestDatabase;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
    target = await createTestDatabase("mysql");
    expect((await t.fetch("/connections", { method: "POST", json: connectionFor("my", target) })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await target?.drop();
  });

  const run = async (nodes: unknown[], params: Record<string, string> = {}) => {
    const created = await t.fetch("/pipelines", { method: "POST", json: { name: `p ${Math.random()}`, nodes } });
    const { id: pipelineId } = (await created.json()) as { id: string };
    const res = await t.fetch(`/pipelines/${pipelineId}/run`, { method: "POST", json: { params } });
    const { id } = (await res.json()) as { id: string };
    const finished = await t.client.runs.wait(id, { timeoutMs: 30_000 });
    expect(finished.status, JSON.stringify(finished.node_runs)).toBe("success");
    return finished;
  };
  const rowsOf = async (runId: string, node: string) =>
    ((await (await t.fetch(`/runs/${runId}/nodes/${node}/preview`)).json()) as { rows: Record<string, unknown>[] })
      .rows;

  it("a value stays one value in a session with NO_BACKSLASH_ESCAPES", async () => {
    await run(
      [
        {
          id: "m",
          type: "migrate",
          config: {
            conn_id: "my",
            sql: [
              "create table inj (v varchar(200))",
              "SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'",
              "insert into inj (v) values (${param.x})",
            ],
          },
        },
      ],
      { x: PAYLOAD },
    );
    const { id } = await run([{ id: "q", type: "source_db", config: { conn_id: "my", query: "select v from inj" } }]);
    expect(await rowsOf(id, "q")).toEqual([{ v: PAYLOAD }]);
  });

  it("values come back exactly as sent, and compare as text", async () => {
    for (const x of TRICKY) {
      const { id } = await run(
        [
          {
            id: "q",
            type: "source_db",
            config: {
              conn_id: "my",
              query: "select ${param.x} as v, char_length(${param.x}) as n, ${param.x} = 'it''s' as same",
            },
          },
        ],
        { x },
      );
      const [row] = await rowsOf(id, "q");
      expect(row?.v, x).toBe(x);
      expect(Number(row?.n), x).toBe([...x].length);
      expect(Number(row?.same), x).toBe(x === "it's" ? 1 : 0);
    }
  });
});
