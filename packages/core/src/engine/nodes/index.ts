import type { NodeType } from "../../model/node.js";
import type { NodeTypeDefinition } from "../node-type.js";
import { codeNode } from "./code.js";
import { migrateNode } from "./migrate.js";
import { sinkDbNode } from "./sink-db.js";
import { sourceDbNode } from "./source-db.js";
import { joinNode } from "./join.js";
import { qualityNode } from "./quality.js";
import { sinkFileNode } from "./sink-file.js";
import { transformNode } from "./transform.js";
import { conditionNode } from "./condition.js";
import { notifyNode } from "./notify.js";
import { sinkApiNode } from "./sink-api.js";
import { sourceApiNode } from "./source-api.js";
import { sourceFileNode } from "./source-file.js";
import { sqlNode } from "./sql.js";
import { unionNode } from "./union.js";

/**
 * The one registry of node types the executor runs. Each type lives in its own file in this folder and is added
 * here. (Config schemas for validation live in `config-schemas.ts`; each node file re-uses its entry there.)
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const NODE_TYPE_REGISTRY: Partial<Record<NodeType, NodeTypeDefinition<any>>> = {
  source_db: sourceDbNode,
  sink_db: sinkDbNode,
  migrate: migrateNode,
  source_api: sourceApiNode,
  source_file: sourceFileNode,
  transform: transformNode,
  join: joinNode,
  quality: qualityNode,
  sink_file: sinkFileNode,
  union: unionNode,
  sql: sqlNode,
  code: codeNode,
  condition: conditionNode,
  sink_api: sinkApiNode,
  notify: notifyNode,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function nodeTypeDefinition(type: string): NodeTypeDefinition<any> | undefined {
  return Object.hasOwn(NODE_TYPE_REGISTRY, type) ? NODE_TYPE_REGISTRY[type as NodeType] : undefined;
}
