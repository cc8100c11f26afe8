import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, silentLogger, type Sluice } from "../../../src/index.js";
import type { RunWithNodes } from "../../../src/model/run.js";
import { connectionFor } from "../../../../../test-support/connections.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../../test-support/databases.js";

/*
 * A database node's connection dies under a running query (the server restarts, an admin kills the session): the
 * node must fail — and so be retried or end the run — instead of waiting for ever. knex's row stream is never told
 * of the lost connection; the run stayed `running` until this was fixed.
 */
const servers = (await testDialects()).filter((d) => d !== "sqlite");
const sleepSql = { postgres: (s: number) => `pg_sleep(${s})`, mysql: (s: number) => `sleep(${s})` } as const;

describe.each(servers)("source_db on %s whose session is killed mid-query", (dialect) => {
  let store: TestDatabase;
  let target: TestDatabase;
  let sluice: Sluice;
  beforeAll(async () => {
    store = await createTestDatabase("sqlite");
    target = await createTestDatabase(dialect);
    sluice = await createSluice({ database: store.url, logger: silentLogger });
    await sluice.start();
    await sluice.connections.create(connectionFor("target", target));
  });
  afterAll(async () => {
    await sluice?.close();
    await store?.drop();
    await target?.drop();
  });

  /** Kills the session whose running statement contains `marker`, once it shows up. */
  async function killSessionRunning(marker: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    if (dialect === "postgres") {
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        while (Date.now() < deadline) {
          const { rows } = await client.query(
            "select pg_terminate_backend(pid) as killed from pg_stat_activity where query like $1 and pid <> pg_backend_pid()",
            [`%${marker}%`],
          );
          if (rows.length > 0) return;
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await client.end();
      }
    } else {
      const conn = await mysql.createConnection({ uri: target.url });
      try {
        while (Date.now() < deadline) {
          const [rows] = (await conn.query(
            "select id from information_schema.processlist where info like ? and id <> connection_id()",
            [`%${marker}%`],
          )) as [{ id: number }[], unknown];
          if (rows.length > 0) {
            for (const { id } of rows) await conn.query(`KILL ${Number(id)}`);
            return;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await conn.end();
      }
    }
    throw new Error(`no session ran ${marker}`);
  }

  it(`${dialect}: the node fails with the driver's error and the run ends`, { timeout: 90_000 }, async () => {
    const marker = `killed_${Date.now()}`;
    const { id } = await sluice.pipelines.create({
      name: `connection lost ${dialect}`,
      nodes: [
        {
          id: "read",
          type: "source_db",
          config: { conn_id: "target", query: `select 1 as ${marker} from (select ${sleepSql[dialect](30)}) s` },
        },
      ],
      edges: [],
    });
    const run = await sluice.runs.trigger(id);
    await killSessionRunning(marker);
    const startedWaiting = Date.now();
    let state: RunWithNodes = await sluice.runs.get(run.id);
    while (state.status === "running" || state.status === "pending") {
      // the killed statement would have slept 30 s; a node that missed the loss waits for ever
      if (Date.now() - startedWaiting > 45_000) throw new Error(`the run is still ${state.status}: the node hangs`);
      await new Promise((r) => setTimeout(r, 50));
      state = await sluice.runs.get(run.id);
    }
    expect(state.status).toBe("failed");
    expect(state.node_runs.find((n) => n.node_id === "read")).toMatchObject({ status: "failed" });
  });
});
