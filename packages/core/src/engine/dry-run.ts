import type { SecretsResolver } from "../connectors/resolver.js";
import { buildAdjacency, descendants, topologicalWaves } from "../dag/graph.js";
import { SluiceError } from "../errors.js";
import { newId } from "../ids.js";
import type { Pipeline } from "../model/pipeline.js";
import { DRY_RUN_ROWS, type DryRunNodeResult } from "../model/run.js";
import { EMPTY_DATASET, type DataSet } from "./dataset.js";
import { executionSettings } from "./execution-settings.js";
import type { HttpClient } from "./http/http-client.js";
import { createNodeContext } from "./node-context.js";
import { SecretScrubber } from "./secret-scrubber.js";
import type { NodeTypeRegistry } from "./run-execution.js";

/** Node types with effects outside the run: a dry run does not execute them. */
const EFFECT_TYPES: ReadonlySet<string> = new Set(["sink_db", "sink_file", "sink_api", "migrate", "notify"]);

export interface DryRunDeps {
  registry: NodeTypeRegistry;
  secrets: SecretsResolver;
  fileRoots: readonly string[];
  stateFiles: readonly string[];
  /** Outbound HTTP of the nodes; default the guarded client with system DNS. */
  http?: HttpClient;
}

/**
 * Runs a pipeline in memory: no run record, no events, no DLQ, sinks/migrations/notifications not executed.
 * Returns the first rows of every node, keyed by node id.
 */
export async function dryRunPipeline(
  deps: DryRunDeps,
  pipeline: Pipeline,
  params: Record<string, string>,
): Promise<Record<string, DryRunNodeResult>> {
  const ids = pipeline.nodes.map((n) => n.id);
  const waves = topologicalWaves({ nodeIds: ids, edges: pipeline.edges });
  if (!waves.ok) throw new SluiceError("unprocessable", "the pipeline graph is invalid", { errors: [`cycle through ${waves.cycle.join(", ")}`] });
  const adjacency = buildAdjacency({ nodeIds: ids, edges: pipeline.edges });
  const nodes = new Map(pipeline.nodes.map((n) => [n.id, n]));
  const outputs = new Map<string, DataSet>();
  const results: Record<string, DryRunNodeResult> = {};
  const skipped = new Set<string>();
  const runId = `dry-run-${newId()}`;
  // node errors go back to the caller: secrets the nodes resolved are masked as in a real run
  const scrubber = new SecretScrubber();
  const report = (id: string, status: DryRunNodeResult["status"], data: DataSet, error?: string) => {
    const node = nodes.get(id);
    results[id] = { node_id: id, name: node?.name ?? id, status, columns: data.columns, rows: data.rows.slice(0, DRY_RUN_ROWS), ...(error ? { error } : {}) };
  };
  for (const wave of waves.waves) {
    for (const id of wave) {
      const node = nodes.get(id)!;
      const inputIds = adjacency.upstream.get(id) ?? [];
      const inputs = inputIds.map((up) => outputs.get(up) ?? EMPTY_DATASET);
      if (skipped.has(id) || inputIds.some((up) => results[up]?.status === "failed")) {
        report(id, "skipped", EMPTY_DATASET);
        continue;
      }
      if (EFFECT_TYPES.has(node.type)) {
        report(id, "skipped", inputs[0] ?? EMPTY_DATASET);
        continue;
      }
      const def = Object.hasOwn(deps.registry, node.type) ? deps.registry[node.type] : undefined;
      if (!def) {
        report(id, "failed", EMPTY_DATASET, `unknown node type '${node.type}'`);
        continue;
      }
      const { timeoutMs } = executionSettings(node);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
      try {
        const config = def.configSchema.parse(node.config ?? {});
        const ctx = createNodeContext({
          runId,
          pipelineId: pipeline.id,
          pipelineName: pipeline.name,
          node,
          signal: controller.signal,
          timeoutMs,
          params,
          inputIds,
          fileRoots: deps.fileRoots,
          stateFiles: deps.stateFiles,
          secrets: deps.secrets,
          scrubber,
          ...(deps.http ? { http: deps.http } : {}),
        });
        const result = await def.run(ctx, config, inputs);
        outputs.set(id, result.output);
        report(id, "success", result.output);
        if (result.skipDownstream) for (const d of descendants(adjacency, id)) skipped.add(d);
      } catch (e) {
        report(id, "failed", EMPTY_DATASET, scrubber.scrub(e instanceof Error ? e.message : String(e)));
      } finally {
        clearTimeout(timer);
      }
    }
  }
  return results;
}
