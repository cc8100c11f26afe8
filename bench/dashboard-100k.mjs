// Dashboard and summary latency with 100,000 runs stored (target < 100 ms each), on SQLite and PostgreSQL.
// Baseline in the same run: `select count(*) from runs` — one full pass over the runs the database must make.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { createSluice, newId, silentLogger, storeOf } from "@sluice/core";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const RUNS = 100_000;
const PIPELINES = 200;

async function median(fn, runs = 15) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)];
}

async function measure(label, database) {
  const sluice = await createSluice({ database, logger: silentLogger });
  const ids = [];
  for (let i = 0; i < PIPELINES; i++) ids.push((await sluice.pipelines.create({ name: `pipeline ${i}` })).id);
  const statuses = ["success", "success", "success", "failed", "cancelled"];
  const now = Date.now();
  for (let start = 0; start < RUNS; start += 1000) {
    const rows = [];
    for (let i = start; i < start + 1000; i++) {
      const t = new Date(now - (i % (30 * 24 * 60)) * 60_000).toISOString();
      rows.push({
        id: newId(),
        pipeline_id: ids[i % PIPELINES],
        status: statuses[i % 5],
        trigger: "manual",
        params: "{}",
        error: null,
        created_at: t,
        started_at: t,
        finished_at: t,
      });
    }
    await storeOf(sluice).knex.batchInsert("runs", rows, 500);
  }
  const baseline = await median(() => storeOf(sluice).knex("runs").count({ n: "*" }));
  const dashboard = await median(() => sluice.insights.dashboard());
  const summary = await median(() => sluice.insights.summary());
  console.log(
    `${label}: dashboard ${dashboard.toFixed(1)} ms, summary ${summary.toFixed(1)} ms (target < 100 ms); baseline count(*) ${baseline.toFixed(1)} ms → dashboard ${(dashboard / baseline).toFixed(1)}x, summary ${(summary / baseline).toFixed(1)}x`,
  );
  await sluice.close();
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-"));
await measure("sqlite", `sqlite:${path.join(dir, "bench.db")}`);
fs.rmSync(dir, { recursive: true, force: true });

const admin = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `sluice_bench_${process.pid}`;
const client = new pg.Client({ connectionString: admin });
try {
  await client.connect();
  await client.query(`create database "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  await measure("postgres", url.toString());
} catch (e) {
  console.log(`postgres: skipped (${e.message})`);
} finally {
  await client.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
  await client.end().catch(() => undefined);
}
