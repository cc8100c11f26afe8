// ENGINE-ONLY: this benchmark replaces `transform` with a pass-through node type and calls the engine in-process,
// without HTTP. It measures the orchestration overhead alone and is NOT the product's figure; the issue on the
// hot path asks for a benchmark over a real `sluice serve` with the real node types.
// Throughput: 2,000 single-node runs triggered at once; runs completed per second (target ≥ 500/s on SQLite).
// PostgreSQL uses SLUICE_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) and a throw-away database.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { z } from "zod";
import { createSluice, dataSetFromRows, defineNodeType, silentLogger } from "@sluice/core";

const RUNS = 2000;
const trivial = defineNodeType({
  type: "transform",
  configSchema: z.looseObject({}),
  async run() {
    return { output: dataSetFromRows([{ n: 1 }]) };
  },
});

async function measure(label, database) {
  const sluice = await createSluice({
    database,
    logger: silentLogger,
    jwtSecret: "0123456789abcdef".repeat(4),
    nodeTypes: { transform: trivial },
  });
  await sluice.start();
  const pipeline = await sluice.pipelines.create({
    name: "one-node",
    nodes: [{ id: "n", type: "transform", config: { rules: [] } }],
  });
  let finished = 0;
  let failed = 0;
  let resolveAll;
  const all = new Promise((r) => (resolveAll = r));
  const onEnd = (ok) => () => {
    finished++;
    if (!ok) failed++;
    if (finished === RUNS) resolveAll(performance.now());
  };
  sluice.events.on("run.completed", onEnd(true));
  sluice.events.on("run.failed", onEnd(false));
  const t0 = performance.now();
  await Promise.all(Array.from({ length: RUNS }, () => sluice.runs.trigger(pipeline.id)));
  const triggered = performance.now();
  const t1 = await all;
  const seconds = (t1 - t0) / 1000;
  console.log("[engine-only: pass-through node, in-process, not the product's figure]");
  console.log(
    `${label}: ${RUNS} runs in ${seconds.toFixed(2)} s → ${(RUNS / seconds).toFixed(0)} runs/s (triggering took ${(triggered - t0).toFixed(0)} ms, ${failed} failed, max_concurrent_runs ${sluice.options.maxConcurrentRuns})`,
  );
  await sluice.close();
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-tp-"));
await measure("SQLite", path.join(dir, "bench.db"));
fs.rmSync(dir, { recursive: true, force: true });

const adminUrl = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `sluice_bench_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: adminUrl });
try {
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await measure("PostgreSQL", url.toString());
  await admin.query(`drop database ${name} with (force)`);
} catch (e) {
  console.log(`PostgreSQL: skipped (${e.message})`);
} finally {
  await admin.end().catch(() => undefined);
}
