// Throughput as a user drives it: a real `sluice serve` (spawned, built packages — run `npm run build` first),
// driven over HTTP with keep-alive (undici), completion followed on the WebSocket (/ws). 2,000 runs of a
// single-node pipeline, 64 triggers in flight; every run must end `success` (checked through the API) and its node
// run, logs, preview and profile must be in the store (read from the database itself, right after the last
// completion event and again after the server has shut down). Targets (the hot-path issue): ≥ 1,000 runs/s on
// SQLite, ≥ 500 runs/s on PostgreSQL, server RSS ≤ 300 MiB (SQLite), no event-loop stall over 50 ms.
//
// The pipeline (--shape):
//   transform       (default) one `transform` node with real rules (cast, filter, add_column, apply_function, sort).
//                   With no upstream node its input is empty: the rules run over 0 rows; node run, logs, preview
//                   and profile are still written. This is the issue's "1-node pipeline, transform with real rules".
//   file            one `source_file` node reading a 20-row CSV (cast: true) from the file root: one real node
//                   doing real work on data.
//   file+transform  source_file (the CSV) → transform (the rules above): the smallest pipeline in which the
//                   transform's rules operate on rows (2 nodes).
// Each repetition uses a fresh server and a fresh database (SQLite file in a temp dir; a throw-away PostgreSQL
// database on $SLUICE_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres, dropped afterwards).
// `--max-concurrent-runs` is left at the server's default (8) unless --max-concurrent-runs is given.
//
// Options: --db sqlite|postgres|both (both)  --shape transform|file|file+transform  --runs 2000  --inflight 64
//          --reps 3  --warmup 20  --max-concurrent-runs N  --cpu-prof DIR (server runs with --cpu-prof)
//          --server-node-args "FLAGS" (Node/V8 flags for the server's process only, space-separated, e.g. "--trace-gc")
//          --keep-server-log DIR (each server's log copied to DIR/server-PID.log when it stops)
//          --auth none|token (none: open mode; token: a user is created and every request carries its token)
//          --history N (before the warm-up, the database is given N finished runs of another pipeline, one every 39 s
//          back from now, as a server in use for months holds them: bench/lib/history.mjs)
//          --baseline empty (with --history: each repetition also runs a server on a database without that history
//          first, and the report ends with history/empty ratios)
//          --count-sql (count SQL statements the server executes for the measured runs, by verb and table)
//          --baseline DIR (another built checkout, e.g. `git worktree add /tmp/base <rev> && cd /tmp/base && npm
//          install`: each repetition runs its server too, alternating, and the report ends with this/baseline ratios)
// Server CPU per run: user + system time of the server process (/proc/PID/stat, 10 ms ticks) from the first trigger
// to the last completion, over the runs measured, of all its threads and of its main thread (the event loop, without
// V8's garbage-collection and compiler threads, the thread pool and the SQLite checkpoint thread). Unlike runs/s it
// hardly depends on what else the machine runs.
// Main thread waiting for a CPU: the time the event loop was ready to run but both cores were busy with other threads
// (V8's compiler and collector, the client, PostgreSQL), from /proc/PID/task/PID/schedstat, per run measured.
// Event-loop delay: prom-client's nodejs_eventloop_lag_max_seconds (monitorEventLoopDelay, 10 ms resolution,
// reset by each scrape; scraped just before the first trigger and just after the last completion). The histogram
// records whole timer intervals, so an idle loop reads ≈ 10 ms: the stall is max − 10 ms.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  ORDER_RULES,
  serverNodeArgs,
  eachMode,
  createPgDatabase,
  eventCollector,
  eventLoopDelay,
  httpClient,
  listRuns,
  loadavg,
  median,
  mmm,
  parseArgs,
  signIn,
  quantile,
  cpuSeconds,
  mainThreadWaitSeconds,
  rssSampler,
  startServer,
  storeCounts,
  tmpDir,
  writeOrdersCsv,
  startedAs,
  reproduceCommand,
} from "./lib/serve.mjs";
import { fillHistory, printHistoryFill } from "./lib/history.mjs";

const opts = parseArgs(process.argv.slice(2), {
  db: "both",
  shape: "transform",
  runs: 2000,
  inflight: 64,
  reps: 3,
  warmup: 20,
  "max-concurrent-runs": "",
  "cpu-prof": "",
  "server-node-args": "",
  "keep-server-log": "",
  "count-sql": false,
  baseline: "",
  auth: "none",
  history: 0,
});
const MiB = 1024 * 1024;
/** The largest and smallest of `xs`: `Math.max(...xs)` overflows the stack for a hundred thousand runs. */
const largest = (xs) => xs.reduce((a, b) => (b > a ? b : a), -Infinity);
const smallest = (xs) => xs.reduce((a, b) => (b < a ? b : a), Infinity);

function pipelineFor(shape, csv) {
  const read = { id: "read", type: "source_file", config: { path: csv, cast: true } };
  const clean = { id: "clean", type: "transform", config: { rules: ORDER_RULES } };
  switch (shape) {
    case "transform":
      return { name: "bench one transform", nodes: [clean], edges: [] };
    case "file":
      return { name: "bench one source_file", nodes: [read], edges: [] };
    case "file+transform":
      return { name: "bench source_file → transform", nodes: [read, clean], edges: [{ from: "read", to: "clean" }] };
    default:
      throw new Error(`unknown --shape ${shape}`);
  }
}

async function once(mode, rep, bin, { history = opts.history } = {}) {
  const dir = tmpDir("sluice-bench-http-tp-");
  const csv = writeOrdersCsv(dir);
  const pgdb = mode === "postgres" ? await createPgDatabase() : null;
  const db = pgdb ? pgdb.url : path.join(dir, "sluice.db");
  const serveArgs = opts["max-concurrent-runs"] ? ["--max-concurrent-runs", String(opts["max-concurrent-runs"])] : [];
  const nodeArgs = serverNodeArgs(opts);
  const env = {};
  const countsFile = path.join(dir, "sql-counts.json");
  if (opts["count-sql"]) {
    nodeArgs.push("--import", new URL("./lib/count-sql.mjs", import.meta.url).href);
    env.SLUICE_BENCH_SQL_COUNTS = countsFile;
  }
  const load0 = loadavg();
  const server = await startServer({ dir, db, serveArgs, nodeArgs, env, bin, keepLogIn: opts["keep-server-log"] });
  const rss = rssSampler(server.pid, 100);
  const http = httpClient(server.url, opts.inflight);
  let events;
  try {
    await signIn(http, opts.auth);
    const pipeline = await http.post("/api/pipelines", pipelineFor(opts.shape, csv));
    const historyMs = history > 0 ? await fillHistory({ http, db, runs: history }) : null;
    const info = await http.get("/api/system/info");
    events = await eventCollector(server.url, pipeline.id, http.token);
    const trigger = () => http.call("POST", `/api/pipelines/${pipeline.id}/run`, { params: {} });

    // warm-up (not measured): JIT, connection pool, prepared statements
    for (let i = 0; i < opts.warmup; i += 8)
      await Promise.all(Array.from({ length: Math.min(8, opts.warmup - i) }, trigger));
    await events.waitForCount(opts.warmup, 60_000);

    const readCounts = async () => {
      if (!opts["count-sql"]) return null;
      fs.rmSync(countsFile, { force: true });
      process.kill(server.pid, "SIGUSR2");
      for (let i = 0; i < 100 && !fs.existsSync(countsFile); i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 20));
      return JSON.parse(fs.readFileSync(countsFile, "utf8"));
    };
    await new Promise((r) => setTimeout(r, 300)); // let the warm-up's batched writes settle
    const sql0 = await readCounts();

    await eventLoopDelay(http); // resets the server's histogram
    const ids = [];
    const latencies = [];
    let next = 0;
    const base = events.count;
    const t0 = performance.now();
    const cpu0 = cpuSeconds([server.pid]);
    const mainCpu0 = cpuSeconds([server.pid], { mainThread: true });
    const wait0 = mainThreadWaitSeconds(server.pid);
    await Promise.all(
      Array.from({ length: opts.inflight }, async () => {
        while (next < opts.runs) {
          next++;
          const t = performance.now();
          const res = await trigger();
          latencies.push(performance.now() - t);
          if (res.status !== 202) throw new Error(`trigger answered ${res.status}`);
          ids.push(res.json().id);
        }
      }),
    );
    const tTriggered = performance.now();
    await events.waitForCount(base + opts.runs, 600_000);
    const tDone = largest(ids.map((id) => events.terminal.get(id).t));
    const cpuMsPerRun = ((cpuSeconds([server.pid]) - cpu0) * 1000) / opts.runs;
    const mainCpuMsPerRun = ((cpuSeconds([server.pid], { mainThread: true }) - mainCpu0) * 1000) / opts.runs;
    const waitMsPerRun = ((mainThreadWaitSeconds(server.pid) - wait0) * 1000) / opts.runs;
    const eld = await eventLoopDelay(http);
    const rssPeak = rss.peak(t0, performance.now());
    const countsNow = await storeCounts(db, pipeline.id);
    let sql = null;
    if (opts["count-sql"]) {
      await new Promise((r) => setTimeout(r, 500)); // batched writes of the last runs
      const sql1 = await readCounts();
      sql = Object.fromEntries(
        Object.keys(sql1)
          .map((k) => [k, (sql1[k] - (sql0[k] ?? 0)) / opts.runs])
          .filter(([, v]) => v > 0)
          .sort((a, b) => b[1] - a[1]),
      );
    }

    // every run `success`, through the API
    const runs = await listRuns(http, pipeline.id);
    const byStatus = {};
    for (const r of runs) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const notOk = ids.filter((id) => events.terminal.get(id).type !== "run.completed");
    const measured = new Set(ids);
    const mine = runs.filter((r) => measured.has(r.id));
    const serverSpan =
      (largest(mine.map((r) => Date.parse(r.finished_at))) - smallest(mine.map((r) => Date.parse(r.created_at)))) /
      1000;

    // runs executing at once, from their started_at/finished_at (ms resolution; an end and a start in the same
    // millisecond count as one after the other): at most max_concurrent_runs if the limit holds
    const edges = mine.flatMap((r) => [
      [Date.parse(r.started_at), 1],
      [Date.parse(r.finished_at), -1],
    ]);
    edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let executing = 0;
    let peakExecuting = 0;
    for (const [, d] of edges) peakExecuting = Math.max(peakExecuting, (executing += d));

    const result = {
      mode,
      rep,
      peakExecuting,
      runsPerS: opts.runs / ((tDone - t0) / 1000),
      serverRunsPerS: opts.runs / serverSpan,
      triggerMs: (tTriggered - t0) / 1000,
      cpuMsPerRun,
      mainCpuMsPerRun,
      waitMsPerRun,
      trigMedian: median(latencies),
      trigP99: quantile(latencies, 0.99),
      rssPeakMiB: rssPeak / MiB,
      eldMax: eld.max,
      eldP99: eld.p99,
      byStatus,
      failedEvents: notOk.length,
      countsNow,
      maxConcurrent: info.max_concurrent_runs,
      historyMs,
      load0,
      load1: loadavg(),
      sql,
      command: server.command,
    };
    events.close();
    await http.close();
    await server.stop();
    rss.stop();
    result.countsAfterStop = await storeCounts(db, pipeline.id);
    return result;
  } finally {
    events?.close();
    rss.stop();
    await server.stop();
    await http.close().catch(() => undefined);
    if (pgdb) await pgdb.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function report(mode, results, label = "") {
  const nodes = pipelineFor(opts.shape, "x").nodes.length;
  const expected = (opts.runs + opts.warmup) * nodes;
  console.log(
    `\n${label}${mode}: ${opts.runs} runs of '${opts.shape}' (${nodes} node${nodes > 1 ? "s" : ""}), ${opts.inflight} triggers in flight, max_concurrent_runs ${results[0].maxConcurrent}, ${results.length} fresh servers`,
  );
  printHistoryFill(results);
  for (const r of results) {
    const ok = r.byStatus.success === opts.runs + opts.warmup && r.failedEvents === 0;
    const store = (c) =>
      `runs ${JSON.stringify(c.runs)} node_runs ${JSON.stringify(c.node_runs)} logs ${c.logs.n ?? 0} outputs ${JSON.stringify(c.outputs)}`;
    console.log(
      `  rep ${r.rep}: ${r.runsPerS.toFixed(0)} runs/s (server-side created→finished ${r.serverRunsPerS.toFixed(0)} runs/s; triggering took ${r.triggerMs.toFixed(2)} s), ` +
        `server CPU ${r.cpuMsPerRun.toFixed(2)} ms per run (main thread ${r.mainCpuMsPerRun.toFixed(2)}, ` +
        `waiting for a CPU ${r.waitMsPerRun.toFixed(2)}), ` +
        `trigger answered median ${r.trigMedian.toFixed(2)} ms p99 ${r.trigP99.toFixed(2)} ms, RSS peak ${r.rssPeakMiB.toFixed(0)} MiB, ` +
        `event-loop delay max ${r.eldMax.toFixed(1)} ms (p99 ${r.eldP99.toFixed(1)} ms), ` +
        `at most ${r.peakExecuting} runs executing at once, ${ok ? "all success" : `NOT ALL SUCCESS ${JSON.stringify(r.byStatus)}`}; loadavg ${r.load0} → ${r.load1}`,
    );
    console.log(`     store at the last completion event: ${store(r.countsNow)}`);
    console.log(
      `     store after shutdown:               ${store(r.countsAfterStop)} (expected ${expected} node runs)`,
    );
    if (r.sql) {
      const total = Object.values(r.sql).reduce((a, b) => a + b, 0);
      console.log(
        `     SQL statements per run: ${total.toFixed(2)} — ${Object.entries(r.sql)
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(", ")}`,
      );
    }
  }
  const pick = (k) => results.map((r) => r[k]);
  console.log(`  runs/s                      min/median/max ${mmm(pick("runsPerS"), 0)}`);
  console.log(`  server-side runs/s          min/median/max ${mmm(pick("serverRunsPerS"), 0)}`);
  console.log(`  server CPU per run          min/median/max ${mmm(pick("cpuMsPerRun"), 2, " ms")} (all threads)`);
  console.log(
    `    of which main thread      min/median/max ${mmm(pick("mainCpuMsPerRun"), 2, " ms")} (the event loop)`,
  );
  console.log(
    `  main thread waiting for CPU min/median/max ${mmm(pick("waitMsPerRun"), 2, " ms")} per run (runnable, the cores busy)`,
  );
  console.log(`  trigger answered median     min/median/max ${mmm(pick("trigMedian"), 2, " ms")}`);
  console.log(`  trigger answered p99        min/median/max ${mmm(pick("trigP99"), 2, " ms")}`);
  console.log(`  server RSS peak             min/median/max ${mmm(pick("rssPeakMiB"), 0, " MiB")}`);
  console.log(
    `  event-loop delay max        min/median/max ${mmm(pick("eldMax"), 1, " ms")} (10 ms timer resolution included)`,
  );
  console.log(`  server started as: ${startedAs(results[0].command, mode)}`);
}

await eachMode(opts, {
  once,
  report,
  compare(mode, results, baseline) {
    const ratio = (k) => median(results.map((r) => r[k])) / median(baseline.map((r) => r[k]));
    console.log(
      `  this/baseline (medians): runs/s ×${ratio("runsPerS").toFixed(2)}, server CPU per run ×${ratio("cpuMsPerRun").toFixed(2)} ` +
        `(main thread ×${ratio("mainCpuMsPerRun").toFixed(2)}), ` +
        `trigger median ×${ratio("trigMedian").toFixed(2)}, ` +
        `RSS peak ×${ratio("rssPeakMiB").toFixed(2)}, event-loop max ×${ratio("eldMax").toFixed(2)}`,
    );
  },
  after(mode) {
    console.log(`  reproduce: ${reproduceCommand(mode)}`);
  },
});
