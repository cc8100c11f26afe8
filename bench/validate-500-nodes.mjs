// Validation of a 500-node pipeline (target ≤ 50 ms), against a baseline in the same run: a bare topological sort
// of the same graph (the least work any validator must do).
import { performance } from "node:perf_hooks";
import { topologicalWaves, validatePipelineDefinition, PipelineCreateSchema } from "@sluice/core";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const N = 500;
const nodes = Array.from({ length: N }, (_, i) =>
  i === 0
    ? { id: `n${i}`, type: "source_db", config: { conn_id: "c", query: "select * from t where d = ${param.date}" } }
    : i === N - 1
      ? { id: `n${i}`, type: "sink_db", config: { conn_id: "c", table: "out", mode: "upsert", conflict_key: "id" } }
      : { id: `n${i}`, type: "transform", config: { rules: [{ type: "deduplicate", columns: ["id"] }] } },
);
const edges = nodes.slice(1).map((n, i) => ({ from: `n${Math.floor(i / 2)}`, to: n.id }));
const input = { name: "big", params: { date: "2026-01-01" }, nodes, edges };

function median(fn, runs = 50) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)];
}

const full = median(() => {
  const def = PipelineCreateSchema.parse(input);
  const result = validatePipelineDefinition(def);
  if (!result.valid) throw new Error(result.errors.join("; "));
});
const baseline = median(() => topologicalWaves({ nodeIds: nodes.map((n) => n.id), edges }));
console.log(`validate 500 nodes (parse + all rules): median ${full.toFixed(2)} ms (target ≤ 50 ms)`);
console.log(
  `baseline topological sort only:        median ${baseline.toFixed(2)} ms (ratio ${(full / baseline).toFixed(1)}x)`,
);
