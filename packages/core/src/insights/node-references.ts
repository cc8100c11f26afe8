import { lookupNodeType, type NodeReferences, type NodeTypeRegistry, type TableRef } from "../engine/node-type.js";
import { NODE_TYPE_REGISTRY } from "../engine/nodes/index.js";
import { text } from "../engine/nodes/references.js";
import type { PipelineNode } from "../model/node.js";

export type { NodeReferences, TableRef };

const VAR_REF = /\$\{var\.([A-Za-z_][A-Za-z0-9_.-]*)\}/g;

/**
 * What one node touches outside its pipeline (lineage, impact, used-by): the connection named by `conn_id` and
 * every `${var.KEY}` for any type, plus what its type's definition declares (tables, files, APIs).
 */
export function nodeReferences(
  node: Pick<PipelineNode, "type" | "config">,
  registry: NodeTypeRegistry = NODE_TYPE_REGISTRY,
): NodeReferences {
  const config = node.config ?? {};
  const declared = lookupNodeType(registry, node.type)?.references(config) ?? {};
  const conn = text(config.conn_id);
  return {
    connections: [...new Set([...(conn ? [conn] : []), ...(declared.connections ?? [])])],
    tablesRead: declared.tablesRead ?? [],
    tablesWritten: declared.tablesWritten ?? [],
    filesRead: declared.filesRead ?? [],
    filesWritten: declared.filesWritten ?? [],
    apisRead: declared.apisRead ?? [],
    apisWritten: declared.apisWritten ?? [],
    variables: [...new Set([...JSON.stringify(config).matchAll(VAR_REF)].map((m) => m[1] as string))],
  };
}
