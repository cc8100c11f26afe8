// Sync a SQLite table into PostgreSQL with an upsert, embedded (no HTTP server). Running it twice leaves no duplicates.
// Run: node examples/sqlite-to-postgres/index.mjs postgres://postgres@127.0.0.1:5432/postgres
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { createSluice } from "@sluice/core";

export async function main(postgresUrl, workDir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-sync-"))) {
  // a source SQLite database with a few customers (one of them changed on every run)
  const sourceFile = path.join(workDir, "shop.db");
  const shop = new Database(sourceFile);
  shop.exec("create table if not exists customers (id integer primary key, email text, visits integer)");
  shop.prepare("insert or ignore into customers values (?, ?, ?)").run(1, "ada@example.com", 3);
  shop.prepare("insert or ignore into customers values (?, ?, ?)").run(2, "bob@example.com", 1);
  shop.prepare("update customers set visits = visits + 1 where id = 1").run();
  shop.close();

  const sluice = await createSluice({
    database: path.join(workDir, "sluice.db"),
    logger: { debug() {}, info() {}, warn() {}, error: console.error },
  });
  try {
    await sluice.start();
    const pg = new URL(postgresUrl);
    for (const [conn_id, body] of [
      ["shop", { type: "sqlite", host: sourceFile }],
      [
        "warehouse",
        {
          type: "postgres",
          host: pg.hostname,
          port: Number(pg.port || 5432),
          schema: pg.pathname.slice(1),
          login: decodeURIComponent(pg.username),
          password: decodeURIComponent(pg.password),
        },
      ],
    ]) {
      const exists = await sluice.connections.get(conn_id).then(
        () => true,
        () => false,
      );
      if (!exists) await sluice.connections.create({ conn_id, ...body });
    }
    const existing = (await sluice.pipelines.list()).find((p) => p.name === "customers to warehouse");
    const pipeline =
      existing ??
      (await sluice.pipelines.create({
        name: "customers to warehouse",
        nodes: [
          {
            id: "read",
            type: "source_db",
            config: { conn_id: "shop", query: "select id, email, visits from customers" },
          },
          {
            id: "load",
            type: "sink_db",
            config: { conn_id: "warehouse", table: "customers_sync", mode: "upsert", conflict_key: "id" },
          },
        ],
        edges: [{ from: "read", to: "load" }],
      }));
    const queued = await sluice.runs.trigger(pipeline.id);
    let run = await sluice.runs.get(queued.id);
    while (run.status === "pending" || run.status === "running") {
      await new Promise((r) => setTimeout(r, 20));
      run = await sluice.runs.get(queued.id);
    }
    return { status: run.status, written: run.node_runs.find((n) => n.node_id === "load")?.row_count ?? 0, workDir };
  } finally {
    await sluice.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await main(process.argv[2] ?? "postgres://postgres@127.0.0.1:5432/postgres");
  console.log(`run ${result.status}: ${result.written} rows upserted into customers_sync`);
}
