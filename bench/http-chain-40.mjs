// Latency as a user sees it: a real `sluice serve` (spawned, built packages — run `npm run build` first), a chain
// of 40 real `transform` nodes, triggered one run at a time over HTTP (keep-alive) and followed on the WebSocket.
// Per run: the trigger's answer time (POST /api/pipelines/{id}/run) and, for comparison, that of GET /health after the
// same 20 ms pause (the HTTP round trip to an idle server on this machine), server-side finished_at − started_at,
// first node started_at − run created_at (server clock, ms resolution), the WebSocket-observed first node.started and
// run.completed, both from just before the POST; and the server's CPU time per measured run (/proc; with its two GETs),
// of its main thread (the event loop) and of all its threads (with V8's garbage-collection and compiler threads).
// The run.completed time is split in three: from the POST to the run's started_at, the run itself (server-side), and
// from its finished_at to run.completed seen (its last batch committed, its events sent and read), against the wall
// clock the client shares with the server (1 ms resolution).
// Targets (the hot-path issue): trigger answered ≤ 1 ms median; the 40-node chain ≤ 8 ms server-side and observed
// complete ≤ 12 ms after the trigger (median of 30 runs); first node started ≤ 2 ms after the trigger. On PostgreSQL it also reports the write-ahead log written per measured run, read
// from `pg_current_wal_insert_lsn()` before and after them: what the database flushes to disk before it reports a
// run's writes committed (the whole cluster's, so run it on an otherwise idle PostgreSQL).
//
// The pipeline (--shape):
//   file       (default) `source_file` reading a 20-row CSV (cast: true) → 40 `transform` nodes in a chain, each with
//              real rules (add_column, filter, cast, drop) over the rows: 41 nodes. A transform needs an input to
//              have rows to work on; the source is the smallest real node that provides one.
//   transform  40 `transform` nodes in a chain and nothing else: the first has no input, so every rule runs over
//              0 rows (node runs, logs, previews and profiles are still written).
// Each repetition uses a fresh server and database (SQLite file in a temp dir; a throw-away PostgreSQL database on
// $SLUICE_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres, dropped afterwards); 5 warm-up runs
// are not measured. Options: --db sqlite|postgres|both (both) --shape file|transform --runs 30 --reps 3 --warmup 5
// --baseline DIR (another built checkout: each repetition runs its server too, and the report adds this/baseline).
// --cpu-prof DIR (the server runs with --cpu-prof; summarise with bench/profile-summary.mjs DIR). --auth none|token
// (none: open mode; token: a user is created and every request and the WebSocket carry its token).
// --history N (before the warm-up, the database is given N finished runs of another pipeline, one every 39 s back
// from now, as a server in use for months holds them: bench/lib/history.mjs) --baseline empty (with --history: each
// repetition also runs a server on a database without that history first, and the report adds history/empty ratios).
// --server-node-args "FLAGS" (Node/V8 flags for the server's process only, space-separated, e.g. "--trace-opt"; the
// client keeps its own); --keep-server-log DIR keeps what they print, each server's log as DIR/server-PID.log.
// A fresh server is still compiling its hot code after 5 warm-up runs: compare --warmup 5 with --warmup 400 to see
// what the warm-up costs (docs/performance.md, "A fresh server's compiler").
import { N, measureChain } from "./lib/chain-40.mjs";
import { printHistoryFill } from "./lib/history.mjs";
import { eachMode, median, mmm, parseArgs, startedAs, reproduceCommand } from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), {
  db: "both",
  shape: "file",
  runs: 30,
  reps: 3,
  warmup: 5,
  baseline: "",
  "cpu-prof": "",
  auth: "none",
  "server-node-args": "",
  "keep-server-log": "",
  history: 0,
});
const once = (mode, rep, bin, over = {}) => measureChain(mode, rep, bin, { ...opts, ...over });

const LABELS = {
  health: "GET /health answered (the HTTP floor)",
  trigger: "trigger answered (POST /run)",
  serverSide: "server-side finished_at − started_at",
  firstNode: "first node started_at − created_at",
  wsFirstNode: "WS node.started (first) after POST",
  wsDone: "WS run.completed after POST",
  toStart: "  of which POST to started_at",
  afterEnd: "  of which finished_at to run.completed",
  mainWait: "server's main thread waiting for a CPU",
};
const TARGETS = {
  health: "none",
  trigger: "≤ 1 ms",
  serverSide: "≤ 8 ms",
  firstNode: "≤ 2 ms",
  wsFirstNode: "≤ 2 ms",
  wsDone: "≤ 12 ms",
  toStart: "none",
  afterEnd: "none",
  mainWait: "none",
};

function report(mode, results, label) {
  console.log(
    `\n${label}${mode}: chain of ${results[0].nodes} nodes (${opts.shape === "file" ? "source_file + " : ""}${N} transform), ${opts.runs} runs one at a time, median per repetition, ${results.length} fresh servers`,
  );
  printHistoryFill(results);
  for (const r of results)
    console.log(
      `  rep ${r.rep}: ${Object.entries(r.medians)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(
          ", ",
        )} ms; server CPU per run ${r.mainCpuMsPerRun.toFixed(1)} ms (main thread), ${r.cpuMsPerRun.toFixed(1)} ms (all); loadavg ${r.load0} → ${r.load1}`,
    );
  for (const k of Object.keys(LABELS)) {
    const meds = results.map((r) => r.medians[k]);
    const all = results.flatMap((r) => r.all[k]);
    console.log(
      `  ${LABELS[k].padEnd(40)} median min/median/max ${mmm(meds, 2, " ms")}  (target ${TARGETS[k]}; all runs: min ${Math.min(...all).toFixed(2)} max ${Math.max(...all).toFixed(2)} ms)`,
    );
  }
  for (const [key, label] of [
    ["mainCpuMsPerRun", "server CPU per run, main thread"],
    ["cpuMsPerRun", "server CPU per run, all threads"],
  ])
    console.log(
      `  ${label.padEnd(40)} min/median/max ${mmm(
        results.map((r) => r[key]),
        1,
        " ms",
      )}  (/proc, 10 ms ticks; the run, its trigger, GET /runs/{id}, GET /health)`,
    );
  if (results[0].walKiB !== null)
    console.log(
      `  ${"WAL written per run (whole cluster)".padEnd(40)} min/median/max ${mmm(
        results.map((r) => r.walKiB),
        0,
        " KiB",
      )}`,
    );
}

await eachMode(opts, {
  once,
  report,
  compare(mode, results, baseline) {
    const ratios = Object.keys(LABELS).map((k) => {
      const ratio = median(results.map((r) => r.medians[k])) / median(baseline.map((r) => r.medians[k]));
      return `${k} ×${ratio.toFixed(2)}`;
    });
    for (const [key, name] of [
      ["mainCpuMsPerRun", "server CPU per run (main thread)"],
      ["cpuMsPerRun", "(all threads)"],
    ]) {
      const ratio = median(results.map((r) => r[key])) / median(baseline.map((r) => r[key]));
      ratios.push(`${name} ×${ratio.toFixed(2)}`);
    }
    console.log(`  this/baseline (medians of the medians): ${ratios.join(", ")}`);
  },
  after(mode, results) {
    console.log(`  server-side timestamps have 1 ms resolution`);
    console.log(`  server started as: ${startedAs(results[0].command, mode)}`);
    console.log(`  reproduce: ${reproduceCommand(mode)}`);
  },
});
