import type { Pipeline } from "../model/pipeline.js";
import type { LineageEdge, LineageGraph, LineageNode } from "../model/insights.js";
import type { NodeTypeRegistry } from "../engine/node-type.js";
import { NODE_TYPE_REGISTRY } from "../engine/nodes/index.js";
import { nodeReferences, type TableRef } from "./node-references.js";

export type { LineageEdge, LineageGraph, LineageNode };

const tableId = (t: TableRef) => `table:${t.conn_id ? `${t.conn_id}/` : ""}${t.table}`;
const tableName = (t: TableRef) => (t.conn_id ? `${t.conn_id}.${t.table}` : t.table);

/**
 * The lineage graph across pipelines: data flows from what a pipeline reads (tables, files, APIs) into it and from
 * it into what it writes; connections and variables point at the pipelines that use them.
 */
export function buildLineage(
  pipelines: readonly Pipeline[],
  registry: NodeTypeRegistry = NODE_TYPE_REGISTRY,
): LineageGraph {
  const nodes = new Map<string, LineageNode>();
  const edges = new Map<string, LineageEdge>();
  const node = (id: string, type: LineageNode["type"], name: string) => {
    if (!nodes.has(id)) nodes.set(id, { id, type, name });
    return id;
  };
  const edge = (from: string, to: string, pipelineId: string) =>
    edges.set(`${from}\u0000${to}\u0000${pipelineId}`, { from, to, pipeline_id: pipelineId });

  for (const p of pipelines) {
    const self = node(`pipeline:${p.id}`, "pipeline", p.name);
    for (const n of p.nodes) {
      const r = nodeReferences(n, registry);
      for (const c of r.connections) edge(node(`connection:${c}`, "connection", c), self, p.id);
      for (const v of r.variables) edge(node(`variable:${v}`, "variable", v), self, p.id);
      for (const t of r.tablesRead) edge(node(tableId(t), "table", tableName(t)), self, p.id);
      for (const t of r.tablesWritten) edge(self, node(tableId(t), "table", tableName(t)), p.id);
      for (const f of r.filesRead) edge(node(`file:${f}`, "file", f), self, p.id);
      for (const f of r.filesWritten) edge(self, node(`file:${f}`, "file", f), p.id);
      for (const a of r.apisRead) edge(node(`api:${a}`, "api", a), self, p.id);
      for (const a of r.apisWritten) edge(self, node(`api:${a}`, "api", a), p.id);
    }
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}
