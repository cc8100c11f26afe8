// What the `code` node's sandbox costs (issue: user workloads out of the server's reach).
//  1. Per-call overhead with a warm runner pool: a `code` job of 10 rows, `return rows.map(...)`, 200 calls.
//  2. 1,000,000 rows × 5 columns through `rows.map((r) => ({ ...r, total: r.amount * 2 }))` in the sandbox, as a
//     ratio to the same map run in this process (the baseline, measured in the same run).
//  3. The same map as users run it, on 200,000 rows: a pipeline on a real `sluice serve` over HTTP, the `code`
//     node's duration against a `transform` (add_column) node doing the same work in the same run.
// Each figure: min / median / max of 3 runs. Reproduce: `npm run build && node bench/code-sandbox.mjs`.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { CodeRunnerPool, isTerminalRunStatus } from "@sluice/core";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const ROWS = 1_000_000;
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const fmt = (x, unit = "ms") => `${x.toFixed(x < 10 ? 2 : 0)} ${unit}`;
const line = (label, st, unit) =>
  console.log(`${label}: min ${fmt(st.min, unit)} · median ${fmt(st.median, unit)} · max ${fmt(st.max, unit)}`);

const makeRows = (n) =>
  Array.from({ length: n }, (_, i) => ({
    id: i,
    name: `name-${i}`,
    amount: i * 0.5,
    flag: i % 2 === 0,
    ts: "2026-11-23T10:00:00.000Z",
  }));
const job = (code, memoryMb = 256) => ({
  code,
  params: {},
  inputs: [{ id: "src", columns: ["id", "name", "amount", "flag", "ts"] }],
  timeoutMs: 600_000,
  memoryMb,
  maxLogLines: 1000,
  maxOutputRows: 5_000_000,
});
const noSignal = { signal: new AbortController().signal, log: () => undefined };

// 1. per-call overhead
const pool = new CodeRunnerPool({ warm: 1, max: 1 });
pool.warmUp();
const small = { columns: ["id", "name", "amount", "flag", "ts"], rows: makeRows(10) };
for (let i = 0; i < 20; i++) await pool.run(job("return rows.map((r) => ({ ...r, x: 1 }));"), [small], noSignal);
const perCall = [];
for (let round = 0; round < 3; round++) {
  const times = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    await pool.run(job("return rows.map((r) => ({ ...r, x: 1 }));"), [small], noSignal);
    times.push(performance.now() - t0);
  }
  perCall.push(stats(times).median);
}
line("per-call overhead, warm pool (median of 200 calls, per round)", stats(perCall));

// 2. 1M rows: sandbox vs in-process
const big = { columns: small.columns, rows: makeRows(ROWS) };
const inProcess = [];
const sandboxed = [];
let peak = 0;
for (let round = 0; round < 3; round++) {
  let t0 = performance.now();
  const mapped = big.rows.map((r) => ({ ...r, total: r.amount * 2 }));
  inProcess.push(performance.now() - t0);
  if (mapped.length !== ROWS) throw new Error("baseline lost rows");
  t0 = performance.now();
  const out = await pool.run(job("return rows.map((r) => ({ ...r, total: r.amount * 2 }));", 2048), [big], noSignal);
  sandboxed.push(performance.now() - t0);
  if (out.rows.length !== ROWS || out.rows[ROWS - 1].total !== (ROWS - 1) * 0.5 * 2)
    throw new Error("sandbox lost rows");
  peak = Math.max(peak, process.memoryUsage().rss);
}
await pool.close();
line("1M rows, map in this process (baseline)", stats(inProcess));
line("1M rows, map in the sandbox (JSON batches over IPC)", stats(sandboxed));
line("ratio sandbox / in-process", stats(sandboxed.map((s, i) => s / inProcess[i])), "×");

// 3. the same through a real server
const BIN = fileURLToPath(new URL("../packages/server-koa/bin/sluice.js", import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-code-"));
const server = spawn(
  process.execPath,
  [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", path.join(dir, "bench.db")],
  {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const base = await new Promise((resolve, reject) => {
  let out = "";
  server.stdout.on("data", (c) => {
    out += c;
    const m = /listening on (http:\/\/\S+?)\/api/.exec(out);
    if (m) resolve(m[1]);
  });
  server.once("exit", (code) => reject(new Error(`server exited ${code}`)));
});
const api = async (p, body) => {
  const res = await fetch(
    `${base}/api${p}`,
    body === undefined
      ? {}
      : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
  );
  return res.json();
};
const HTTP_ROWS = 200_000;
const generate = `return Array.from({ length: ${HTTP_ROWS} }, (_, i) => ({ id: i, name: 'name-' + i, amount: i * 0.5, flag: i % 2 === 0, ts: '2026-11-23T10:00:00.000Z' }));`;
const pipeline = await api("/pipelines", {
  name: "code vs transform, 200k rows",
  nodes: [
    { id: "gen", type: "code", config: { code: generate, memory_mb: 2048 } },
    {
      id: "code_map",
      type: "code",
      config: { code: "return rows.map((r) => ({ ...r, total: r.amount * 2 }));", memory_mb: 2048 },
    },
    {
      id: "transform_map",
      type: "transform",
      config: { rules: [{ type: "add_column", name: "total", expression: "amount * 2" }] },
    },
  ],
  edges: [
    { from: "gen", to: "code_map" },
    { from: "gen", to: "transform_map" },
  ],
  parallelism: 1,
});
const codeMs = [];
const transformMs = [];
for (let round = 0; round < 3; round++) {
  const { id } = await api(`/pipelines/${pipeline.id}/run`, { params: {} });
  let run;
  for (;;) {
    run = await api(`/runs/${id}`);
    if (isTerminalRunStatus(run.status)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (run.status !== "success")
    throw new Error(`run ${run.status}: ${JSON.stringify(run.node_runs.map((n) => n.error))}`);
  codeMs.push(run.node_runs.find((n) => n.node_id === "code_map").duration_ms);
  transformMs.push(run.node_runs.find((n) => n.node_id === "transform_map").duration_ms);
}
server.kill("SIGTERM");
line("sluice serve, 200k rows, transform add_column (baseline)", stats(transformMs));
line("sluice serve, 200k rows, code rows.map", stats(codeMs));
line("ratio code / transform", stats(codeMs.map((c, i) => c / transformMs[i])), "×");
console.log(`bench process peak RSS ${(peak / 2 ** 20).toFixed(0)} MB`);
console.log("reproduce: npm run build && node bench/code-sandbox.mjs");
