// What a node over many rows costs everyone else on the server: a real `sluice serve` (spawned, built packages —
// run `npm run build` first), a pipeline that reads a CSV of --rows orders (300,000 by default) with `source_file`
// and hands it to the node measured (--node), triggered once per repetition, and meanwhile a second client asking
// `GET /health` every 20 ms, as a UI, a monitoring probe or another user would. Reported per repetition: the run's
// time, the measured node's own `duration_ms`, the longest and the 99th-percentile `GET /health` answer while the run
// ran, and the largest event-loop delay the server's /metrics saw meanwhile (prom-client, 10 ms resolution; the
// histogram is reset by a scrape just before the trigger).
//
// --node (transform by default; a comma-separated list, or all):
//   transform   the rules of --rules: orders (default; the throughput script's rules: cast, filter, computed column,
//               two functions, sort) or row-by-row (the same without the sort)
//   aggregate   a transform of one aggregate rule into a group per row (sum by id)
//   join        a full join of the orders with themselves read a second time, on id
//   union       the orders and the orders read a second time
//   quality     not_null, unique, range, accepted_values, type_check, regex and freshness checks, failing rows
//               sent to the dead-letter queue
//   condition   an expression over the per-column sums, counts and maximums
//   sink_json   `sink_file` writing the rows as a JSON array
//   sink_csv    `sink_file` writing the rows as CSV
//   failed      the transform of --rules, then a `quality` check that blocks: the run fails, and the outputs of
//               source_file and the transform are kept for a resume (the run is expected to end `failed`)
//   source_json no node after the source: `source_file` itself, reading the orders as a JSON array (a file of
//               about 35 MB for 300,000 rows) rather than CSV
//   dedupe_long a transform deduplicating 6,000 rows (not --rows) by a text of 18,006 characters, alike but for its
//               last six: texts V8 hashes by their length alone (past 16,383 characters), as one user's data can be
//   wide        no node after the source: `source_file` itself, reading 40 rows (not --rows) of 60,000 columns, whose
//               preview and profile are as wide as the rows
//   sql_wave    16 `sql` nodes after the source, all in one wave, each grouping 1,000 orders (not --rows): 16 SQLite
//               worker processes started at once (the measured node is the first)
// Options: --db sqlite|postgres|both (sqlite) --rows 300000 --reps 3 --node transform --rules orders|row-by-row
// --baseline DIR (another built checkout: each repetition runs its server too, and the report adds this/baseline)
// --keep-server-log DIR (each server's log copied to DIR/server-PID.log when it stops)
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  ORDER_RULES,
  createPgDatabase,
  eachMode,
  eventLoopDelay,
  healthProbe,
  holdValues,
  httpClient,
  loadavg,
  median,
  mmm,
  parseArgs,
  startServer,
  tmpDir,
  writeOrdersCsv,
  startedAs,
  reproduceCommand,
} from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), {
  db: "sqlite",
  rows: 300_000,
  reps: 3,
  node: "transform",
  rules: "orders",
  baseline: "",
  "keep-server-log": "",
});
const RULES = {
  orders: ORDER_RULES,
  "row-by-row": ORDER_RULES.filter((r) => r.type !== "sort"),
}[opts.rules];
if (!RULES) throw new Error(`--rules: orders or row-by-row, got ${opts.rules}`);

/** The nodes after `read` (source_file of the orders, `file`) for each --node: the one measured has the id `n`. */
const PIPELINES = {
  transform: () => ({ nodes: [{ id: "n", type: "transform", config: { rules: RULES } }], edges: [["read", "n"]] }),
  aggregate: () => ({
    nodes: [
      {
        id: "n",
        type: "transform",
        config: {
          rules: [{ type: "aggregate", group_by: ["id"], aggregations: [{ column: "amount", function: "sum" }] }],
        },
      },
    ],
    edges: [["read", "n"]],
  }),
  join: (file) => ({
    nodes: [
      { id: "again", type: "source_file", config: { path: file, format: "csv" } },
      { id: "n", type: "join", config: { how: "full", on: "id" } },
    ],
    edges: [
      ["read", "n"],
      ["again", "n"],
    ],
  }),
  union: (file) => ({
    nodes: [
      { id: "again", type: "source_file", config: { path: file, format: "csv" } },
      { id: "n", type: "union", config: {} },
    ],
    edges: [
      ["read", "n"],
      ["again", "n"],
    ],
  }),
  quality: () => ({
    nodes: [
      {
        id: "n",
        type: "quality",
        config: {
          on_failure: "dlq",
          checks: [
            { type: "not_null", column: "amount" },
            { type: "unique", column: "id" },
            { type: "range", column: "amount", min: 0, max: 499 },
            { type: "accepted_values", column: "region", values: ["eu", "us", "apac", "latam"] },
            { type: "type_check", column: "id", expected_type: "integer" },
            { type: "regex", column: "day", pattern: "^2026-11-[0-9]{2}$" },
            { type: "freshness", column: "day", max_age_hours: 24 * 365 * 100 },
          ],
        },
      },
    ],
    edges: [["read", "n"]],
  }),
  condition: () => ({
    nodes: [{ id: "n", type: "condition", config: { expression: "sum.amount > 0 && count.id == row_count" } }],
    edges: [["read", "n"]],
  }),
  sink_json: () => ({
    nodes: [{ id: "n", type: "sink_file", config: { path: "out.json", format: "json" } }],
    edges: [["read", "n"]],
  }),
  sink_csv: () => ({
    nodes: [{ id: "n", type: "sink_file", config: { path: "out.csv", format: "csv" } }],
    edges: [["read", "n"]],
  }),
  failed: () => ({
    expect: "failed",
    nodes: [
      { id: "n", type: "transform", config: { rules: RULES } },
      { id: "block", type: "quality", config: { checks: [{ type: "range", column: "amount", max: 100 }] } },
    ],
    edges: [
      ["read", "n"],
      ["n", "block"],
    ],
  }),
  source_json: () => ({ input: writeOrdersJson, measured: "read", nodes: [], edges: [] }),
  wide: () => ({ input: writeWideCsv, measured: "read", nodes: [], edges: [] }),
  sql_wave: () => ({
    input: (dir) => writeOrdersCsv(dir, SQL_WAVE_ROWS),
    measured: "s0",
    parallelism: SQL_WAVE_NODES, // all in one wave (the default runs 4 of a wave at a time)
    nodes: Array.from({ length: SQL_WAVE_NODES }, (_, i) => ({
      id: `s${i}`,
      type: "sql",
      config: { sql: "select region, count(*) as n, sum(amount) as total from input group by region" },
    })),
    edges: Array.from({ length: SQL_WAVE_NODES }, (_, i) => ["read", `s${i}`]),
  }),
  dedupe_long: () => ({
    input: writeLongTextsCsv,
    nodes: [{ id: "n", type: "transform", config: { rules: [{ type: "deduplicate", columns: ["text"] }] } }],
    edges: [["read", "n"]],
  }),
};

/** `source_json`'s input: the orders of --rows as a JSON array, each row's fields as the CSV has them. */
function writeOrdersJson(dir) {
  const files = path.join(dir, "files");
  fs.mkdirSync(files, { recursive: true });
  const regions = ["eu", "us", "apac", "latam"];
  const rows = [];
  for (let i = 1; i <= opts.rows; i++)
    rows.push({
      id: i,
      region: regions[i % 4],
      customer: ` customer ${i % 7} `,
      amount: (i * 13.37) % 500,
      status: i % 5 === 0 ? "refunded" : "ok",
      day: `2026-11-${String((i % 28) + 1).padStart(2, "0")}`,
    });
  fs.writeFileSync(path.join(files, "orders.json"), JSON.stringify(rows));
  return "orders.json";
}

/** `sql_wave`: its `sql` nodes, and the rows of its input (not --rows). */
const SQL_WAVE_NODES = 16;
const SQL_WAVE_ROWS = 1000;
/** Rows of `dedupe_long`'s input (not --rows). */
const LONG_TEXT_ROWS = 6_000;

/** `dedupe_long`'s input: LONG_TEXT_ROWS rows of an id and a text of 18,006 characters, alike but for its last six. */
function writeLongTextsCsv(dir) {
  const files = path.join(dir, "files");
  fs.mkdirSync(files, { recursive: true });
  const prefix = "x".repeat(18_000);
  const lines = ["id,text"];
  for (let i = 1; i <= LONG_TEXT_ROWS; i++) lines.push(`${i},${prefix}${String(i).padStart(6, "0")}`);
  fs.writeFileSync(path.join(files, "long-texts.csv"), lines.join("\n") + "\n");
  return "long-texts.csv";
}
/** `wide`'s input: WIDE_ROWS rows (not --rows) of WIDE_COLUMNS columns `c1`…, each cell its row and column. */
const WIDE_ROWS = 40;
const WIDE_COLUMNS = 60_000;

function writeWideCsv(dir) {
  const files = path.join(dir, "files");
  fs.mkdirSync(files, { recursive: true });
  const columns = Array.from({ length: WIDE_COLUMNS }, (_, c) => `c${c + 1}`);
  const lines = [columns.join(",")];
  for (let r = 1; r <= WIDE_ROWS; r++) lines.push(columns.map((_, c) => `${r}x${c + 1}`).join(","));
  fs.writeFileSync(path.join(files, "wide.csv"), lines.join("\n") + "\n");
  return "wide.csv";
}
const NODES = opts.node === "all" ? Object.keys(PIPELINES) : opts.node.split(",");
for (const n of NODES)
  if (!PIPELINES[n]) throw new Error(`--node: ${Object.keys(PIPELINES).join(", ")} or all, got ${n}`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TERMINAL = new Set(["success", "failed", "cancelled"]);

async function once(node, mode, rep, bin) {
  const dir = tmpDir("sluice-bench-big-nodes-");
  const pgdb = mode === "postgres" ? await createPgDatabase() : null;
  const db = pgdb ? pgdb.url : path.join(dir, "sluice.db");
  const { input } = PIPELINES[node]();
  const file = input ? input(dir) : writeOrdersCsv(dir, opts.rows);
  const { nodes, edges, expect = "success", measured: measuredId = "n", parallelism = null } = PIPELINES[node](file);
  const load0 = loadavg();
  const server = await startServer({ dir, db, bin, keepLogIn: opts["keep-server-log"] });
  const http = httpClient(server.url, 2);
  try {
    const pipeline = await http.post("/api/pipelines", {
      name: `bench big ${node} (${file})`,
      nodes: [
        { id: "read", type: "source_file", config: { path: file, format: path.extname(file).slice(1) } },
        ...nodes,
      ],
      edges: edges.map(([from, to]) => ({ from, to })),
      parallelism,
    });
    await eventLoopDelay(http); // resets the server's histogram
    const t0 = performance.now();
    const { id } = await http.post(`/api/pipelines/${pipeline.id}/run`, {});
    const probe = healthProbe(server.url);
    let run;
    for (;;) {
      run = await http.get(`/api/runs/${id}`);
      if (TERMINAL.has(run.status)) break;
      await sleep(50);
    }
    const runMs = performance.now() - t0;
    const health = await probe.stop();
    const loop = await eventLoopDelay(http);
    if (run.status !== expect) throw new Error(`the run ended ${run.status}: ${run.error}`);
    const measured = run.node_runs.find((n) => n.node_id === measuredId);
    return {
      rep,
      values: {
        run: runMs,
        node: measured.duration_ms,
        rowsOut: measured.row_count,
        ...holdValues(health, loop),
      },
      probes: health.length,
      load0,
      load1: loadavg(),
      command: server.command,
    };
  } finally {
    await http.close().catch(() => undefined);
    await server.stop();
    if (pgdb) await pgdb.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const LABELS = {
  run: "the run, trigger to end seen (polled every 50 ms)",
  node: "the node's duration_ms",
  rowsOut: "rows out of the node",
  healthMax: "longest GET /health while it ran",
  healthP99: "GET /health, 99th percentile",
  loopMax: "largest event-loop delay (/metrics)",
};

/** What --node runs after reading the orders, for the report. */
const described = (node) => {
  const transform = `transform (${opts.rules}: ${RULES.length} rules)`;
  if (node === "transform") return transform;
  if (node === "failed") return `${transform} → quality (blocks: the run fails, outputs kept)`;
  if (node === "source_json") return "source_file (json) itself";
  if (node === "wide") return `source_file (csv) itself, ${WIDE_COLUMNS.toLocaleString("en-US")} columns`;
  return PIPELINES[node]().nodes.at(-1).type;
};

const reporter = (node) => (mode, results, prefix) => {
  console.log(
    `\n${prefix}${mode}: ${{ dedupe_long: LONG_TEXT_ROWS, wide: WIDE_ROWS, sql_wave: SQL_WAVE_ROWS }[node] ?? opts.rows} rows through source_file → ${node}: ${described(node)}, ${results.length} fresh servers`,
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
};

for (const node of NODES)
  await eachMode(opts, {
    once: (mode, rep, bin) => once(node, mode, rep, bin),
    report: reporter(node),
    compare(mode, results, baseline) {
      const ratios = ["run", "node", "healthMax", "healthP99", "loopMax"].map((k) => {
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
