/** Rows for store-level tests: a pending run and a node run with every field set, overridable. */
import type { NodeRun, Run } from "../packages/core/src/model/run.js";

export const T0 = "2026-01-01T00:00:00.000Z";

export const pendingRun = (id: string, over: Partial<Run> = {}): Run => ({
  id,
  pipeline_id: "p1",
  status: "pending",
  trigger: "manual",
  params: {},
  error: null,
  created_at: T0,
  started_at: null,
  finished_at: null,
  ...over,
});

export const nodeRunRow = (id: string, runId: string, over: Partial<NodeRun> = {}): NodeRun => ({
  id,
  run_id: runId,
  node_id: "n1",
  status: "running",
  attempt: 1,
  row_count: 0,
  duration_ms: 0,
  started_at: T0,
  finished_at: null,
  error: null,
  ...over,
});
