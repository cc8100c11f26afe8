// Data throughput: source_db → transform(deduplicate) → sink_db of 1,000,000 rows × 5 columns, on SQLite and
// PostgreSQL, through the real engine (a triggered run). Baseline in the same run: a hand-written script doing the
// same read, dedupe and batched insert (1000 rows per INSERT, one transaction) with the same driver.
// Targets: pipeline rows/s ≥ 0.7 × baseline; peak RSS ≤ 1 GiB. Each measurement runs in its own process so its
// peak RSS is its own. ROWS=… to change the size.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const ROWS = Number(process.env.ROWS ?? 1_000_000);
const PG_ADMIN = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const self = fileURLToPath(import.meta.url);

async function prepare(kind) {
  if (kind === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-data-"));
    const file = path.join(dir, "data.db");
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.exec("create table src (id integer, name text, amount real, region text, day text)");
    const insert = db.prepare("insert into src values (?, ?, ?, ?, ?)");
    db.transaction(() => {
      // every 10th row repeats the previous one, so deduplicate has work to do
      for (let i = 0; i < ROWS; i++) {
        const k = i % 10 === 9 ? i - 1 : i;
        insert.run(k, `name ${k}`, k * 0.5, k % 2 ? "eu" : "us", "2026-11-22");
      }
    })();
    db.close();
    return { url: file, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `sluice_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(PG_ADMIN);
  u.pathname = `/${name}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await c.query("create table src (id bigint, name text, amount double precision, region text, day text)");
  await c.query(
    `insert into src select k, 'name ' || k, k * 0.5, case when k % 2 = 1 then 'eu' else 'us' end, '2026-11-22'
     from (select case when i % 10 = 9 then i - 1 else i end as k from generate_series(0, ${ROWS - 1}) i) s`,
  );
  await c.end();
  return {
    url: u.toString(),
    cleanup: async () => {
      const a = new pg.Client({ connectionString: PG_ADMIN });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/** Child process: one measurement. Prints JSON {seconds, written, maxRssMB}. */
async function worker(kind, mode, url) {
  const started = process.hrtime.bigint();
  let written = 0;
  if (mode === "baseline") {
    const key = (r) => JSON.stringify([r.id, r.name, r.amount, r.region, r.day]);
    if (kind === "sqlite") {
      const db = new Database(url);
      db.exec("drop table if exists dst; create table dst (id integer, name text, amount real, region text, day text)");
      const seen = new Set();
      const rows = db
        .prepare("select id, name, amount, region, day from src")
        .all()
        .filter((r) => (seen.has(key(r)) ? false : (seen.add(key(r)), true)));
      const batch = db.prepare(`insert into dst values ${Array(1000).fill("(?,?,?,?,?)").join(",")}`);
      const one = db.prepare("insert into dst values (?,?,?,?,?)");
      db.transaction(() => {
        let i = 0;
        for (; i + 1000 <= rows.length; i += 1000)
          batch.run(rows.slice(i, i + 1000).flatMap((r) => [r.id, r.name, r.amount, r.region, r.day]));
        for (; i < rows.length; i++) one.run(rows[i].id, rows[i].name, rows[i].amount, rows[i].region, rows[i].day);
      })();
      written = rows.length;
      db.close();
    } else {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(
        "drop table if exists dst; create table dst (id bigint, name text, amount double precision, region text, day text)",
      );
      const seen = new Set();
      const rows = (await c.query("select id, name, amount, region, day from src")).rows.filter((r) =>
        seen.has(key(r)) ? false : (seen.add(key(r)), true),
      );
      await c.query("begin");
      for (let i = 0; i < rows.length; i += 1000) {
        const chunk = rows.slice(i, i + 1000);
        const values = chunk
          .map((_, j) => `($${j * 5 + 1},$${j * 5 + 2},$${j * 5 + 3},$${j * 5 + 4},$${j * 5 + 5})`)
          .join(",");
        await c.query(
          `insert into dst values ${values}`,
          chunk.flatMap((r) => [r.id, r.name, r.amount, r.region, r.day]),
        );
      }
      await c.query("commit");
      written = rows.length;
      await c.end();
    }
  } else {
    const { createSluice, silentLogger } = await import("@sluice/core");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-engine-"));
    const sluice = await createSluice({
      database: path.join(dir, "sluice.db"),
      logger: silentLogger,
      jwtSecret: "0".repeat(64),
    });
    await sluice.start();
    const conn =
      kind === "sqlite"
        ? { type: "sqlite", host: url }
        : (() => {
            const u = new URL(url);
            return {
              type: "postgres",
              host: u.hostname,
              port: Number(u.port || 5432),
              schema: u.pathname.slice(1),
              login: u.username || "postgres",
              password: u.password,
            };
          })();
    await sluice.connections.create({ conn_id: "data", ...conn });
    const p = await sluice.pipelines.create({
      name: "1m",
      nodes: [
        {
          id: "read",
          type: "source_db",
          config: { conn_id: "data", query: "select id, name, amount, region, day from src", timeout: 3600 },
        },
        { id: "dedupe", type: "transform", config: { rules: [{ type: "deduplicate" }], timeout: 3600 } },
        { id: "write", type: "sink_db", config: { conn_id: "data", table: "dst_engine", timeout: 3600 } },
      ],
      edges: [
        { from: "read", to: "dedupe" },
        { from: "dedupe", to: "write" },
      ],
    });
    const run = await sluice.runs.trigger(p.id);
    let state = await sluice.runs.get(run.id);
    while (state.status === "pending" || state.status === "running") {
      await new Promise((r) => setTimeout(r, 50));
      state = await sluice.runs.get(run.id);
    }
    if (state.status !== "success")
      throw new Error(`run ${state.status}: ${JSON.stringify(state.node_runs.map((n) => n.error))}`);
    written = state.node_runs.find((n) => n.node_id === "write").row_count;
    await sluice.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(JSON.stringify({ seconds, written, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
}

if (process.argv[2] === "worker") {
  await worker(process.argv[3], process.argv[4], process.argv[5]);
} else {
  for (const kind of (process.env.BENCH_DIALECTS ?? "sqlite,postgres").split(",")) {
    const data = await prepare(kind);
    const measure = (mode) => {
      const r = spawnSync(process.execPath, [self, "worker", kind, mode, data.url], {
        encoding: "utf8",
        maxBuffer: 1 << 20,
      });
      if (r.status !== 0) throw new Error(`${kind} ${mode} failed: ${r.stderr}`);
      return JSON.parse(r.stdout.trim().split("\n").pop());
    };
    const base = measure("baseline");
    const engine = measure("sluice");
    const rate = (m) => ROWS / m.seconds;
    console.log(
      `${kind}: ${ROWS} rows in, ${engine.written} written | hand-written ${rate(base).toFixed(0)} rows/s (${base.seconds.toFixed(2)} s, peak RSS ${base.maxRssMB.toFixed(0)} MB)` +
        ` | sluice ${rate(engine).toFixed(0)} rows/s (${engine.seconds.toFixed(2)} s, peak RSS ${engine.maxRssMB.toFixed(0)} MB) | ratio ${(rate(engine) / rate(base)).toFixed(2)} (target ≥ 0.7), RSS target ≤ 1024 MB`,
    );
    await data.cleanup();
  }
}
