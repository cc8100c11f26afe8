// PostgreSQL, at the store (engine-only: no HTTP, no server): what two statements every run executes cost per call,
// in CPU of this process (`process.cpuUsage`) and in wall time until PostgreSQL's answer is back:
// - the claim when nothing is pending (what an idle executor's claim costs), `runs.claimPending`;
// - a batch that inserts one just-triggered run and nothing else (a trigger while no run executes), `runs.writeBatch`.
// Each repetition opens the built store (`npm run build` first) on a fresh throw-away database on $SLUICE_TEST_PG_URL
// (default postgres://postgres@127.0.0.1:5432/postgres; dropped afterwards), warms up, then times --calls calls of
// each, one at a time. With --baseline DIR (another built checkout) each repetition does the same with that
// checkout's store too, alternating, and the report ends with this/baseline ratios.
// This isolates the store's own cost per statement; what a user sees is measured by http-trigger.mjs and
// http-throughput.mjs.
// Options: --reps 3 --calls 3000 --warmup 300 --baseline DIR
import path from "node:path";
import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { ROOT, createPgDatabase, loadavg, median, mmm, parseArgs } from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), { reps: 3, calls: 3000, warmup: 300, baseline: "" });
const CALLS = Number(opts.calls);

/** Times `fn` --calls times after --warmup calls: CPU and wall ms per call. */
async function perCall(fn) {
  for (let i = 0; i < Number(opts.warmup); i++) await fn();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await fn();
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / 1000 / CALLS, wall: (performance.now() - t0) / CALLS };
}

async function measure(checkout) {
  const { createKnexStore } = await import(pathToFileURL(path.join(checkout, "packages/core/dist/index.js")).href);
  const db = await createPgDatabase();
  const store = await createKnexStore(db.url);
  try {
    const now = new Date().toISOString();
    const claim = await perCall(() => store.runs.claimPending("bench-owner", 8, now));
    const run = () => ({
      id: randomUUID(),
      pipeline_id: "bench-pipeline",
      status: "pending",
      trigger: "manual",
      params: {},
      error: null,
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
    });
    const insert = await perCall(() => store.runs.writeBatch({ runs: [run()], nodeRuns: [], logs: [], outputs: [] }));
    return { claim, insert };
  } finally {
    await store.close();
    await db.drop();
  }
}

const checkouts = [["THIS CHECKOUT", ROOT], ...(opts.baseline ? [["BASELINE", path.resolve(opts.baseline)]] : [])];
const results = new Map(checkouts.map(([label]) => [label, []]));
for (let rep = 1; rep <= Number(opts.reps); rep++) {
  for (const [label, checkout] of rep % 2 ? checkouts : [...checkouts].reverse()) {
    const load0 = loadavg();
    const r = await measure(checkout);
    results.get(label).push(r);
    const f = (m) => `${m.cpu.toFixed(3)} ms CPU, ${m.wall.toFixed(3)} ms wall`;
    console.log(`  rep ${rep} ${label}: claim ${f(r.claim)}; insert ${f(r.insert)}; loadavg ${load0} → ${loadavg()}`);
  }
}
const pick = (label, stmt, k) => results.get(label).map((r) => r[stmt][k]);
for (const [label] of checkouts) {
  console.log(`\n${label} postgres: ${CALLS} calls each, one at a time, per call, ${opts.reps} fresh databases`);
  for (const stmt of ["claim", "insert"])
    for (const k of ["cpu", "wall"])
      console.log(`  ${`${stmt} ${k}`.padEnd(14)} min/median/max ${mmm(pick(label, stmt, k), 3, " ms")}`);
}
if (opts.baseline) {
  const ratio = (stmt, k) => (median(pick("THIS CHECKOUT", stmt, k)) / median(pick("BASELINE", stmt, k))).toFixed(2);
  console.log(
    `  this/baseline (medians): claim CPU ×${ratio("claim", "cpu")}, wall ×${ratio("claim", "wall")}; ` +
      `insert CPU ×${ratio("insert", "cpu")}, wall ×${ratio("insert", "wall")}`,
  );
}
console.log(`  reproduce: node bench/pg-store-statements.mjs${opts.baseline ? ` --baseline ${opts.baseline}` : ""}`);
