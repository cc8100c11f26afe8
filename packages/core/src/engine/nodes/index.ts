import type { NodeType } from "../../model/node.js";
import type { NodeTypeDefinition, NodeTypeRegistry } from "../node-type.js";
import { codeNode } from "./code.js";
import { conditionNode } from "./condition.js";
import { joinNode } from "./join.js";
import { migrateNode } from "./migrate.js";
import { notifyNode } from "./notify.js";
import { qualityNode } from "./quality.js";
import { sinkApiNode } from "./sink-api.js";
import { sinkDbNode } from "./sink-db.js";
import { sinkFileNode } from "./sink-file.js";
import { sourceApiNode } from "./source-api.js";
import { sourceDbNode } from "./source-db.js";
import { sourceFileNode } from "./source-file.js";
import { sqlNode } from "./sql.js";
import { transformNode } from "./transform.js";
import { unionNode } from "./union.js";

/**
 * The one registry of built-in node types. Every fact about a type (config schema, effects, references, run) sits
 * in its definition, one file per type in this folder; validation, the executor, dry-run, lineage, impact and
 * used-by read them from here (or from the registry a Sluice instance merged with its `nodeTypes`). The compiler
 * checks the registry holds every type of `NODE_TYPES` (the names the API contract and the client know), each under
 * its own name.
 */
export const NODE_TYPE_REGISTRY = {
  source_db: sourceDbNode,
  source_api: sourceApiNode,
  source_file: sourceFileNode,
  transform: transformNode,
  join: joinNode,
  union: unionNode,
  sql: sqlNode,
  code: codeNode,
  quality: qualityNode,
  condition: conditionNode,
  sink_db: sinkDbNode,
  sink_file: sinkFileNode,
  sink_api: sinkApiNode,
  migrate: migrateNode,
  notify: notifyNode,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
} as const satisfies { readonly [T in NodeType]: NodeTypeDefinition<any, T> };

/**
 * The built-in types with `extra` added or replacing them (`createSluice({ nodeTypes })`). Each extra definition
 * must sit under its own type name, so the name a pipeline uses and the definition that runs it cannot disagree.
 */
export function mergeNodeTypes(extra: NodeTypeRegistry = {}): NodeTypeRegistry {
  for (const [key, def] of Object.entries(extra)) {
    if (!def || typeof def.run !== "function" || def.type !== key) {
      throw new TypeError(`nodeTypes.${key}: expected a node type defined with defineNodeType({ type: "${key}", … })`);
    }
  }
  // a definition written by hand rather than with defineNodeType gets the same defaults
  const added = Object.fromEntries(
    Object.entries(extra).map(([key, def]) => [key, { effects: false, references: () => ({}), ...def }]),
  );
  return Object.freeze({ ...NODE_TYPE_REGISTRY, ...added });
}
