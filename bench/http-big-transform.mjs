// What a transform over many rows costs everyone else on the server: a real `sluice serve` (spawned, built packages —
// run `npm run build` first), a pipeline `source_file` (a CSV of --rows orders, 300,000 by default) → `transform`,
// triggered once per repetition, and meanwhile a second client asking `GET /health` every 20 ms, as a UI, a
// monitoring probe or another user would. Reported per repetition: the run's time, the transform node's own
// `duration_ms`, the longest and the 99th-percentile `GET /health` answer while the run ran, and the largest
// event-loop delay the server's /metrics saw meanwhile (prom-client, 10 ms resolution; the histogram is reset by a
// scrape just before the trigger).
//
// --rules orders (default): the throughput script's rules (cast, filter, computed column, two functions, sort),
//   the sort taking all rows at once; row-by-row: the same without the sort, every rule applied in slices.
// Options: --db sqlite|postgres|both (sqlite) --rows 300000 --reps 3 --rules orders|row-by-row
// --baseline DIR (another built checkout: each repetition runs its server too, and the report adds this/baseline)
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  ORDER_RULES,
  createPgDatabase,
  eachMode,
  eventLoopDelay,
  httpClient,
  loadavg,
  median,
  mmm,
  parseArgs,
  quantile,
  startServer,
  tmpDir,
  writeOrdersCsv,
  startedAs,
  reproduceCommand,
} from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), { db: "sqlite", rows: 300_000, reps: 3, rules: "orders", baseline: "" });
const RULES = {
  orders: ORDER_RULES,
  "row-by-row": ORDER_RULES.filter((r) => r.type !== "sort"),
}[opts.rules];
if (!RULES) throw new Error(`--rules: orders or row-by-row, got ${opts.rules}`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TERMINAL = new Set(["success", "failed", "cancelled"]);

async function once(mode, rep, bin) {
  const dir = tmpDir("sluice-bench-big-transform-");
  const pgdb = mode === "postgres" ? await createPgDatabase() : null;
  const db = pgdb ? pgdb.url : path.join(dir, "sluice.db");
  const file = writeOrdersCsv(dir, opts.rows);
  const load0 = loadavg();
  const server = await startServer({ dir, db, bin });
  const http = httpClient(server.url, 2);
  const probe = httpClient(server.url, 1);
  try {
    const pipeline = await http.post("/api/pipelines", {
      name: `bench big transform (${opts.rows} rows)`,
      nodes: [
        { id: "read", type: "source_file", config: { path: file, format: "csv" } },
        { id: "t", type: "transform", config: { rules: RULES } },
      ],
      edges: [{ from: "read", to: "t" }],
    });
    await eventLoopDelay(http); // resets the server's histogram
    const t0 = performance.now();
    const { id } = await http.post(`/api/pipelines/${pipeline.id}/run`, {});
    const health = [];
    let done = false;
    const probing = (async () => {
      while (!done) {
        const h0 = performance.now();
        await probe.call("GET", "/health");
        health.push(performance.now() - h0);
        await sleep(20);
      }
    })();
    let run;
    for (;;) {
      run = await http.get(`/api/runs/${id}`);
      if (TERMINAL.has(run.status)) break;
      await sleep(50);
    }
    const runMs = performance.now() - t0;
    done = true;
    await probing;
    const loop = await eventLoopDelay(http);
    if (run.status !== "success") throw new Error(`the run ended ${run.status}: ${run.error}`);
    const node = run.node_runs.find((n) => n.node_id === "t");
    return {
      rep,
      values: {
        run: runMs,
        transform: node.duration_ms,
        rowsOut: node.row_count,
        healthMax: Math.max(...health),
        healthP99: quantile(health, 0.99),
        loopMax: loop.max,
      },
      probes: health.length,
      load0,
      load1: loadavg(),
      command: server.command,
    };
  } finally {
    await http.close().catch(() => undefined);
    await probe.close().catch(() => undefined);
    await server.stop();
    if (pgdb) await pgdb.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const LABELS = {
  run: "the run, trigger to end seen (polled every 50 ms)",
  transform: "the transform node's duration_ms",
  rowsOut: "rows out of the transform",
  healthMax: "longest GET /health while it ran",
  healthP99: "GET /health, 99th percentile",
  loopMax: "largest event-loop delay (/metrics)",
};

function report(mode, results, prefix) {
  console.log(
    `\n${prefix}${mode}: ${opts.rows} rows through source_file → transform (${opts.rules}: ${RULES.length} rules), ${results.length} fresh servers`,
  );
  for (const r of results)
    console.log(
      `  rep ${r.rep}: ${Object.entries(r.values)
        .map(([k, v]) => `${k} ${k === "rowsOut" ? v : v.toFixed(1)}`)
        .join(", ")} (${r.probes} probes); loadavg ${r.load0} → ${r.load1}`,
    );
  for (const k of Object.keys(LABELS))
    console.log(
      `  ${LABELS[k].padEnd(52)} min/median/max ${mmm(
        results.map((r) => r.values[k]),
        k === "rowsOut" ? 0 : 1,
        k === "rowsOut" ? "" : " ms",
      )}`,
    );
}

await eachMode(opts, {
  once,
  report,
  compare(mode, results, baseline) {
    const ratios = ["run", "transform", "healthMax", "healthP99", "loopMax"].map((k) => {
      const ratio = median(results.map((r) => r.values[k])) / median(baseline.map((r) => r.values[k]));
      return `${k} ×${ratio.toFixed(2)}`;
    });
    console.log(`  this/baseline (medians): ${ratios.join(", ")}`);
  },
  after(mode, results) {
    console.log(`  server started as: ${startedAs(results[0].command, mode)}`);
    console.log(`  reproduce: ${reproduceCommand(mode)}`);
  },
});
