#!/usr/bin/env node
// Scale-out on one PostgreSQL: runs/s with 1, 2 and 3 `sluice serve` instances sharing one database, driven as users
// drive them — triggers over HTTP spread round-robin over the instances (64 in flight in all), completion observed
// on ONE instance's WebSocket (it sees every instance's runs through the shared event log, docs/events.md). The
// pipeline is one `transform` with real rules. Each repetition starts fresh servers on a fresh database.
//
//   npm run build && node bench/http-scale-instances.mjs [--instances 1,2,3] [--runs 2000] [--inflight 64] [--reps 3]
//
// On a 2-core machine the instances, PostgreSQL and this client share the same two cores, so the figure cannot grow
// linearly: it shows what the shared database and the cross-instance event log cost (docs/deploying.md).
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import {
  ORDER_RULES,
  createPgDatabase,
  eventCollector,
  httpClient,
  loadavg,
  median,
  cpuSeconds,
  mmm,
  parseArgs,
  startServer,
  tmpDir,
} from "./lib/serve.mjs";

/** The pids of every PostgreSQL server process on this machine (its backends included). */
const postgresPids = () => fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p) && readComm(p) === "postgres");
const readComm = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};

const opts = parseArgs(process.argv.slice(2), { instances: "1,2,3", runs: 2000, inflight: 64, reps: 3, warmup: 40 });
const counts = opts.instances.split(",").map(Number);

async function once(n, rep) {
  const pgdb = await createPgDatabase();
  const servers = [];
  const clients = [];
  let events;
  try {
    for (let i = 0; i < n; i++) {
      const dir = tmpDir(`sluice-bench-scale-${i}-`);
      servers.push(await startServer({ dir, db: pgdb.url, serveArgs: ["--no-ui", "--instance-id", `bench-${i}`] }));
      clients.push(httpClient(servers[i].url, Math.ceil(opts.inflight / n)));
    }
    const pipeline = await clients[0].post("/api/pipelines", {
      name: "scale one transform",
      nodes: [{ id: "clean", type: "transform", config: { rules: ORDER_RULES } }],
      edges: [],
    });
    events = await eventCollector(servers[0].url, pipeline.id);
    let turn = 0;
    const trigger = () =>
      clients[turn++ % n].call("POST", `/api/pipelines/${pipeline.id}/run`, { params: {} }).then((r) => r.json().id);
    for (let i = 0; i < opts.warmup; i += 8) await Promise.all(Array.from({ length: 8 }, trigger));
    await events.waitForCount(opts.warmup, 120_000);

    const base = events.count;
    const sluicePids = servers.map((s) => s.pid);
    const cpu0 = { sluice: cpuSeconds(sluicePids), pg: cpuSeconds(postgresPids()) };
    const ids = [];
    const latencies = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: opts.inflight }, async () => {
        while (next < opts.runs) {
          next++;
          const t = performance.now();
          ids.push(await trigger());
          latencies.push(performance.now() - t);
        }
      }),
    );
    await events.waitForCount(base + opts.runs, 600_000);
    const tDone = Math.max(...ids.map((id) => events.terminal.get(id).t));
    // CPU per run: the instances' and PostgreSQL's (backends end with their connections: read before stopping)
    const cpu1 = { sluice: cpuSeconds(sluicePids), pg: cpuSeconds(postgresPids()) };
    const failed = ids.filter((id) => events.terminal.get(id).type !== "run.completed").length;
    return {
      n,
      rep,
      runsPerS: opts.runs / ((tDone - t0) / 1000),
      trigMedian: median(latencies),
      sluiceCpuMsPerRun: ((cpu1.sluice - cpu0.sluice) * 1000) / opts.runs,
      pgCpuMsPerRun: ((cpu1.pg - cpu0.pg) * 1000) / opts.runs,
      failed,
      load: loadavg(),
    };
  } finally {
    events?.close();
    for (const c of clients) await c.close().catch(() => undefined);
    for (const s of servers) await s.stop();
    await pgdb.drop();
  }
}

const rows = [];
for (const n of counts) {
  const results = [];
  for (let rep = 1; rep <= opts.reps; rep++) {
    const r = await once(n, rep);
    console.log(
      `  ${n} instance${n > 1 ? "s" : ""}, rep ${rep}: ${r.runsPerS.toFixed(0)} runs/s, trigger median ` +
        `${r.trigMedian.toFixed(2)} ms, CPU per run: sluice ${r.sluiceCpuMsPerRun.toFixed(2)} ms, PostgreSQL ` +
        `${r.pgCpuMsPerRun.toFixed(2)} ms; ${r.failed} not successful, loadavg ${r.load}`,
    );
    if (r.failed > 0) throw new Error(`${r.failed} runs did not succeed`);
    results.push(r);
  }
  rows.push([n, results]);
}

console.log(
  `\nPostgreSQL, ${opts.runs} runs of one transform, ${opts.inflight} triggers in flight spread over the instances, ` +
    `completion seen on instance 1's WebSocket; min/median/max of ${opts.reps} fresh runs`,
);
const one = rows.find(([n]) => n === 1);
for (const [n, results] of rows) {
  const rates = results.map((r) => r.runsPerS);
  const ratio = one ? ` (×${(median(rates) / median(one[1].map((r) => r.runsPerS))).toFixed(2)} of 1 instance)` : "";
  console.log(`  ${n} instance${n > 1 ? "s" : ""}: ${mmm(rates, 0, " runs/s")}${ratio}`);
  console.log(
    `    CPU per run: sluice (all instances) ${mmm(
      results.map((r) => r.sluiceCpuMsPerRun),
      2,
      " ms",
    )}, ` +
      `PostgreSQL ${mmm(
        results.map((r) => r.pgCpuMsPerRun),
        2,
        " ms",
      )}`,
  );
}
console.log(`\nreproduce: npm run build && node bench/http-scale-instances.mjs ${process.argv.slice(2).join(" ")}`);
