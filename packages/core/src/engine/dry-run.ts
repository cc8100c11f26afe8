import { nowIso, systemClock, type Clock } from "../clock.js";
import type { SecretsResolver } from "../connectors/resolver.js";
import { SluiceEvents } from "../events.js";
import { newId } from "../ids.js";
import { silentLogger } from "../logger.js";
import type { Pipeline } from "../model/pipeline.js";
import { DRY_RUN_ROWS, type DryRunNodeResult, type Run } from "../model/run.js";
import { EMPTY_DATASET, ownProperty } from "./dataset.js";
import type { HttpClient } from "./http/http-client.js";
import type { NodeTypeRegistry } from "./node-type.js";
import { RunExecution, type ExecutionStore } from "./run-execution.js";

export interface DryRunDeps {
  registry: NodeTypeRegistry;
  secrets: SecretsResolver;
  fileRoots: readonly string[];
  stateFiles: readonly string[];
  /** Outbound HTTP of the nodes; default the guarded client with system DNS. */
  http?: HttpClient;
  /** Parallelism when the pipeline sets none (default 4, as a run). */
  parallelism?: number;
  clock?: Clock;
}

/** A run store that keeps nothing: a dry run leaves no run, node run, log, output or DLQ entry behind. */
const KEEPS_NOTHING: ExecutionStore = {
  insert: async () => undefined,
  writeBatch: async ({ transitions = [] }) => ({ moved: transitions.map((t) => t.id), seqs: [], refused: [] }),
  nodeRuns: async () => [],
  output: async () => null,
  deleteOutputs: async () => undefined,
  insertDlq: async () => undefined,
  transition: async () => true,
  get: async () => null,
};

/**
 * Runs a pipeline with the real executor (waves, parallelism, retries, timeouts, condition skips, abort) with its
 * effects suppressed: nodes of a type with effects (sinks, migrate, notify) are not executed and pass their input
 * through. No run record, no events (a private bus nobody listens to), nothing persisted. Returns the first rows
 * of every node, keyed by node id; a node that did not run (after a failure or a false condition) is `skipped`.
 * `signal` cancels it as a run is cancelled: executing nodes are stopped, no other starts.
 */
export async function dryRunPipeline(
  deps: DryRunDeps,
  pipeline: Pipeline,
  params: Record<string, string>,
  signal?: AbortSignal,
): Promise<Record<string, DryRunNodeResult>> {
  const clock = deps.clock ?? systemClock;
  const now = nowIso(clock);
  const run: Run = {
    id: `dry-run-${newId()}`,
    pipeline_id: pipeline.id,
    status: "running",
    trigger: "manual",
    params,
    error: null,
    created_at: now,
    started_at: now,
    finished_at: null,
  };
  const execution = new RunExecution(
    {
      ...deps,
      store: KEEPS_NOTHING,
      events: new SluiceEvents(),
      clock,
      logger: silentLogger,
      parallelism: deps.parallelism ?? 4,
      suppressEffects: true,
    },
    run,
    pipeline,
  );
  if (signal?.aborted) execution.cancel();
  else signal?.addEventListener("abort", () => execution.cancel(), { once: true });
  await execution.execute();
  const outcomes = execution.outcomes();
  const results: Record<string, DryRunNodeResult> = {};
  for (const node of pipeline.nodes) {
    const outcome = outcomes.get(node.id);
    const status = outcome?.status === "success" || outcome?.status === "failed" ? outcome.status : "skipped";
    const data = (status === "failed" ? undefined : outcome?.output) ?? EMPTY_DATASET;
    // own keys (a node id "__proto__" is a result like any other); rows masked like every preview of a run
    ownProperty(results, node.id, {
      node_id: node.id,
      name: node.name ?? node.id,
      status,
      columns: execution.shownColumns(data.columns),
      rows: await execution.shownRows(data.rows.slice(0, DRY_RUN_ROWS)),
      ...(outcome?.error ? { error: outcome.error } : {}),
    });
  }
  return results;
}
