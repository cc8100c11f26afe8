// The trigger's answer time as a user sees it: a real `sluice serve` (spawned, built packages — run `npm run build`
// first), `POST /api/pipelines/{id}/run` sent one at a time over a keep-alive connection, each after the previous
// answer and a pause; the answer means the run is queued and durable (docs/storage.md). Target (the hot-path issue):
// answered in ≤ 1 ms median.
//
// What an answer time means depends on what the machine did just before: after a pause of some milliseconds an
// idle server's (and client's) CPU caches are cold and their threads must be woken, which costs even a bare
// `GET /health`. So each trigger is paired with a `GET /health` sent after the same pause (the HTTP floor), and
// the script measures two pauses: --pauses 1,20 (ms) by default — 1 ms is a client triggering runs back to back,
// 20 ms is the pause `http-chain-40.mjs` leaves between runs.
//
// The pipeline: one `transform` node with real rules (the throughput script's), run over 0 rows: its run takes well
// under a millisecond, so runs do not pile up behind the triggers. --nodes 41 makes it a chain of 41 such nodes
// (the trigger then looks up and checks a 41-node pipeline; with 1 ms pauses its runs overlap the next triggers).
// Each repetition uses a fresh server and database (SQLite file in a temp dir; a throw-away PostgreSQL database on
// $SLUICE_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres, dropped afterwards).
// Options: --db sqlite|postgres|both (sqlite) --pauses 1,20 --runs 300 --warmup 30 --reps 3 --nodes 1
// --baseline DIR (another built checkout: each repetition runs its server too, and the report adds this/baseline)
// --cpu-prof DIR (the server runs with --cpu-prof, sampling every 50 µs; summarise with bench/profile-summary.mjs DIR)
// On PostgreSQL the database's own floor is measured too, after each pause's triggers, as many times and after the
// same pause: a one-row INSERT committed by a bare `pg` client (its own connection, the statement sent unnamed with a
// parameter; the run's is a named prepared statement) into a table of the same throw-away database, while the server
// idles. The trigger's answer waits for such a commit (its run must be durable): with the HTTP floor it is roughly the
// least a trigger can take. (Under the triggers' 1 ms pauses a run may still be writing; the floor has no such company.)
import path from "node:path";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import pg from "pg";
import {
  ORDER_RULES,
  cpuProfArgs,
  eachMode,
  createPgDatabase,
  httpClient,
  loadavg,
  median,
  mmm,
  parseArgs,
  startServer,
  tmpDir,
  startedAs,
  reproduceCommand,
} from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), {
  db: "sqlite",
  pauses: "1,20",
  runs: 300,
  warmup: 30,
  reps: 3,
  nodes: 1,
  baseline: "",
  "cpu-prof": "",
});
const PAUSES = String(opts.pauses)
  .split(",")
  .map((p) => Number(p));
if (PAUSES.some((p) => !Number.isFinite(p) || p < 0)) throw new Error(`--pauses: numbers of ms, got ${opts.pauses}`);

function pipelineSpec() {
  const nodes = Array.from({ length: Number(opts.nodes) }, (_, i) => ({
    id: `t${i}`,
    type: "transform",
    config: { rules: ORDER_RULES },
  }));
  const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id }));
  return { name: `bench trigger (${nodes.length} transform)`, nodes, edges };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function once(mode, rep, bin) {
  const dir = tmpDir("sluice-bench-http-trigger-");
  const pgdb = mode === "postgres" ? await createPgDatabase() : null;
  const db = pgdb ? pgdb.url : path.join(dir, "sluice.db");
  const load0 = loadavg();
  const server = await startServer({ dir, db, bin, nodeArgs: cpuProfArgs(opts["cpu-prof"], 50) });
  const http = httpClient(server.url, 1);
  const floor = pgdb ? new pg.Client({ connectionString: pgdb.url }) : null;
  try {
    if (floor) {
      await floor.connect();
      await floor.query("create table bench_commit_floor (id text primary key, body text not null)");
    }
    const pipeline = await http.post("/api/pipelines", pipelineSpec());
    const medians = {};
    let n = 0;
    for (const pause of PAUSES) {
      const health = [];
      const trigger = [];
      const commit = [];
      for (let i = 0; i < opts.warmup + opts.runs; i++) {
        await sleep(pause);
        const h0 = performance.now();
        await http.call("GET", "/health");
        const h = performance.now() - h0;
        await sleep(pause);
        const t0 = performance.now();
        await http.call("POST", `/api/pipelines/${pipeline.id}/run`, { params: {} }); // throws unless 2xx
        const t = performance.now() - t0;
        if (i < opts.warmup) continue;
        health.push(h);
        trigger.push(t);
      }
      for (let i = 0; floor && i < opts.warmup + opts.runs; i++) {
        await sleep(pause);
        const c0 = performance.now();
        await floor.query("insert into bench_commit_floor (id, body) values ($1, $2)", [`row ${n++}`, "{}"]);
        if (i >= opts.warmup) commit.push(performance.now() - c0);
      }
      medians[`health ${pause}`] = median(health);
      if (floor) medians[`commit ${pause}`] = median(commit);
      medians[`trigger ${pause}`] = median(trigger);
    }
    return { rep, medians, load0, load1: loadavg(), command: server.command };
  } finally {
    await http.close().catch(() => undefined);
    await floor?.end().catch(() => undefined);
    await server.stop();
    if (pgdb) await pgdb.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const label = (key) => {
  const [what, pause] = key.split(" ");
  if (what === "health") return `GET /health after ${pause} ms (the HTTP floor)`;
  if (what === "commit") return `INSERT committed by bare pg after ${pause} ms`;
  return `POST /run answered after ${pause} ms (target ≤ 1 ms)`;
};

function report(mode, results, prefix) {
  console.log(
    `\n${prefix}${mode}: ${opts.runs} triggers one at a time per pause, ${opts.nodes}-node pipeline, median per repetition, ${results.length} fresh servers`,
  );
  for (const r of results)
    console.log(
      `  rep ${r.rep}: ${Object.entries(r.medians)
        .map(([k, v]) => `${k} ms ${v.toFixed(2)}`)
        .join(", ")}; loadavg ${r.load0} → ${r.load1}`,
    );
  for (const k of Object.keys(results[0].medians))
    console.log(
      `  ${label(k).padEnd(46)} median min/median/max ${mmm(
        results.map((r) => r.medians[k]),
        2,
        " ms",
      )}`,
    );
}

await eachMode(opts, {
  once,
  report,
  compare(mode, results, baseline) {
    const ratios = Object.keys(results[0].medians).map((k) => {
      const ratio = median(results.map((r) => r.medians[k])) / median(baseline.map((r) => r.medians[k]));
      return `${k} ms ×${ratio.toFixed(2)}`;
    });
    console.log(`  this/baseline (medians of the medians): ${ratios.join(", ")}`);
  },
  after(mode, results) {
    console.log(`  server started as: ${startedAs(results[0].command, mode)}`);
    console.log(`  reproduce: ${reproduceCommand(mode)}`);
  },
});
