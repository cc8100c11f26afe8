import { contentDigest } from "../content-digest.js";
import { buildAdjacency, topologicalWaves, type Adjacency, type WavesResult } from "../dag/graph.js";
import type { PipelineNode } from "../model/node.js";
import type { Pipeline } from "../model/pipeline.js";
import { executionSettings, type NodeExecutionSettings } from "./execution-settings.js";
import { lookupNodeType, type NodeTypeDefinition, type NodeTypeRegistry } from "./node-type.js";

/** A node ready to run: its type and parsed config, or why it cannot run (reported as the node's failure). */
export type PlannedNode =
  | { ok: true; def: NodeTypeDefinition<unknown>; config: unknown; settings: NodeExecutionSettings }
  | { ok: false; error: string };

/**
 * What running a pipeline needs that depends only on its nodes and edges: the graph's waves and adjacency, and every
 * node's type and parsed config. Computed once per content and node-type registry, not on every run: parsing 40
 * nodes' configs cost more than a run's writes. Parsed configs are shared by the runs; node types must not change
 * the config they are given.
 */
export interface PipelinePlan {
  nodes: ReadonlyMap<string, PipelineNode>;
  adjacency: Adjacency;
  waves: WavesResult;
  planned: ReadonlyMap<string, PlannedNode>;
}

/** Plans kept per registry (a Sluice instance may bring its own node types). */
const PLANS = new WeakMap<NodeTypeRegistry, Map<string, PipelinePlan>>();
const MAX_PLANS = 1000;

/**
 * The plan of a pipeline's current nodes and edges, looked up by a digest: `key`, a digest of the whole pipeline as
 * it is now where the caller has one (a pipeline it just read from the store: `digestOf`), else a digest of its nodes
 * and edges, computed here, since a pipeline object may have changed. Either way, any change to the nodes or edges
 * makes a new plan.
 */
export function planOf(
  pipeline: Pick<Pipeline, "nodes" | "edges">,
  registry: NodeTypeRegistry,
  key: string = contentDigest([pipeline.nodes, pipeline.edges]),
): PipelinePlan {
  let plans = PLANS.get(registry);
  if (!plans) PLANS.set(registry, (plans = new Map()));
  let plan = plans.get(key);
  if (!plan) {
    plan = makePlan(pipeline, registry);
    if (plans.size >= MAX_PLANS) plans.delete(plans.keys().next().value as string);
    plans.set(key, plan);
  }
  return plan;
}

function makePlan(pipeline: Pick<Pipeline, "nodes" | "edges">, registry: NodeTypeRegistry): PipelinePlan {
  const shape = { nodeIds: pipeline.nodes.map((n) => n.id), edges: pipeline.edges };
  const planned = new Map<string, PlannedNode>();
  for (const node of pipeline.nodes) planned.set(node.id, planNode(node, registry));
  return {
    nodes: new Map(pipeline.nodes.map((n) => [n.id, n])),
    adjacency: buildAdjacency(shape),
    waves: topologicalWaves(shape),
    planned,
  };
}

function planNode(node: PipelineNode, registry: NodeTypeRegistry): PlannedNode {
  const def = lookupNodeType(registry, node.type) as NodeTypeDefinition<unknown> | undefined;
  if (!def) return { ok: false, error: `unknown node type '${node.type}'` };
  const parsed = def.configSchema.safeParse(node.config ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `${i.path.length > 0 ? `config.${i.path.join(".")}: ` : ""}${i.message}`,
    );
    return { ok: false, error: `invalid config: ${issues.join("; ")}` };
  }
  return { ok: true, def, config: parsed.data, settings: executionSettings(node) };
}
