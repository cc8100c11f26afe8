// ENGINE-ONLY: this benchmark replaces `transform` with a pass-through node type and calls the engine in-process,
// without HTTP. It measures the orchestration overhead alone and is NOT the product's figure; the issue on the
// hot path asks for a benchmark over a real `sluice serve` with the real node types.
// Orchestration overhead: a 40-node sequential chain of trivial nodes on SQLite. Trigger → `run.completed` as a
// client following the run's events observes it (target median ≤ 30 ms), and trigger return → first node started
// (target ≤ 5 ms). Node-run state, logs, previews and profiles are still written (batched).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { createSluice, dataSetFromRows, defineNodeType, silentLogger } from "@sluice/core";

const passthrough = defineNodeType({
  type: "transform",
  configSchema: z.looseObject({}),
  async run(_ctx, _config, inputs) {
    return { output: inputs[0] ?? dataSetFromRows([{ n: 1 }]) };
  },
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-chain-"));
const sluice = await createSluice({
  database: path.join(dir, "bench.db"),
  logger: silentLogger,
  jwtSecret: "0123456789abcdef".repeat(4),
  nodeTypes: { transform: passthrough },
});
await sluice.start();
const N = 40;
const nodes = Array.from({ length: N }, (_, i) => ({ id: `n${i}`, type: "transform", config: { rules: [] } }));
const edges = nodes.slice(1).map((n, i) => ({ from: `n${i}`, to: n.id }));
const pipeline = await sluice.pipelines.create({ name: "chain-40", nodes, edges });

const waiters = new Map();
sluice.events.on("run.completed", (e) => waiters.get(e.run_id)?.resolve(performance.now()));
sluice.events.on("run.failed", (e) => waiters.get(e.run_id)?.reject(new Error(e.error)));
const firstNode = new Map();
sluice.events.on("node.started", (e) => {
  if (e.node_id === "n0") firstNode.set(e.run_id, performance.now());
});

const total = [];
const toFirst = [];
const RUNS = 60;
for (let i = 0; i < RUNS + 10; i++) {
  const t0 = performance.now();
  let resolve, reject;
  const done = new Promise((res, rej) => ((resolve = res), (reject = rej)));
  const run = await sluice.runs.trigger(pipeline.id);
  const returned = performance.now();
  waiters.set(run.id, { resolve, reject });
  const t1 = await done;
  if (i < 10) continue; // warm-up
  total.push(t1 - t0);
  toFirst.push((firstNode.get(run.id) ?? t1) - returned);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const check = await sluice.runs.get([...waiters.keys()].at(-1));
if (check.status !== "success" || check.node_runs.length !== N || check.node_runs.some((n) => n.status !== "success")) {
  throw new Error("the chain did not persist 40 successful node runs");
}
console.log("[engine-only: pass-through node, in-process, not the product's figure]");
console.log(
  `40-node chain, SQLite: trigger → success median ${median(total).toFixed(2)} ms (target ≤ 30 ms), p90 ${[...total].sort((a, b) => a - b)[Math.floor(total.length * 0.9)].toFixed(2)} ms`,
);
console.log(`trigger returned → first node started: median ${median(toFirst).toFixed(2)} ms (target ≤ 5 ms)`);
await sluice.close();
fs.rmSync(dir, { recursive: true, force: true });
