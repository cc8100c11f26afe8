import type { Edge, NodeType, PipelineCreate, PipelineNodeInput } from "@sluice/core/model";

/**
 * Pipelines as code: typed node helpers and `definePipeline`, producing exactly the JSON the API takes.
 *
 * ```ts
 * const extract = sourceDb("extract", { conn_id: "warehouse", query: "select * from orders where day = ${param.date}"
 * });
 * const clean = transform("clean", { rules: [{ type: "deduplicate", columns: ["id"] }] });
 * const load = sinkDb("load", { conn_id: "analytics", table: "orders", mode: "upsert", conflict_key: "id" });
 * extract.to(clean).to(load);
 * export default definePipeline({ name: "orders", schedule: "0 2 * * *", nodes: [extract, clean, load] });
 * ```
 *
 * A node type the server registered with `createSluice({ nodeTypes })` is built with `node(type, id, config)`.
 */

/** Retry/timeout settings every node accepts (docs/nodes.md). */
export interface NodeSettings {
  max_retries?: number;
  /** Seconds before the first retry (doubling, capped at 60 s). */
  retry_delay?: number;
  /** Seconds per attempt. */
  timeout?: number;
}

type Extra = NodeSettings & Record<string, unknown>;
type FileFormat = "csv" | "json" | "jsonl";

/** Config keys per built-in node type (the server validates the rest; see docs/nodes.md). */
export interface NodeConfigs {
  source_db: Extra & { conn_id: string; query: string };
  source_api: Extra & { url?: string; conn_id?: string; path?: string; method?: string; rows_path?: string };
  source_file: Extra & { path: string; format?: FileFormat; delimiter?: string; header?: boolean };
  transform: Extra & { rules: ({ type: string } & Record<string, unknown>)[] };
  join: Extra & { how?: "inner" | "left" | "right" | "full"; on?: string | string[] };
  union: Extra;
  sql: Extra & { sql: string };
  code: Extra & { code: string };
  quality: Extra & { checks: ({ type: string } & Record<string, unknown>)[]; on_failure?: "block" | "warn" | "dlq" };
  condition: Extra & { expression: string };
  sink_db: Extra & { conn_id: string; table: string; mode?: "insert" | "upsert"; conflict_key?: string | string[] };
  sink_file: Extra & { path: string; format?: FileFormat };
  sink_api: Extra & { url?: string; conn_id?: string; batch_size?: number };
  migrate: Extra & { conn_id: string; sql: string | string[] };
  notify: Extra & { url?: string; conn_id?: string; message?: string };
}

export interface NodeOptions {
  name?: string;
  position?: { x: number; y: number };
}

/** The config of a node of type `T`: typed for a built-in type, any keys (and the settings) for a custom one. */
export type NodeConfigOf<T extends string> = T extends NodeType ? NodeConfigs[T] : Extra;

/** A node under construction; `a.to(b)` adds the edge a → b and returns b, so chains read left to right. */
export class NodeBuilder<T extends string = string> {
  readonly downstream: NodeBuilder[] = [];

  constructor(
    readonly id: string,
    readonly type: T,
    readonly config: NodeConfigOf<T>,
    readonly options: NodeOptions = {},
  ) {}

  to<N extends NodeBuilder>(next: N): N;
  to(next: NodeBuilder[]): NodeBuilder[];
  to(next: NodeBuilder | NodeBuilder[]): NodeBuilder | NodeBuilder[] {
    for (const n of Array.isArray(next) ? next : [next]) this.downstream.push(n);
    return next;
  }

  toJSON(): PipelineNodeInput {
    const node: PipelineNodeInput = { id: this.id, type: this.type, config: { ...this.config } };
    if (this.options.name) node.name = this.options.name;
    if (this.options.position) node.position = this.options.position;
    return node;
  }
}

/**
 * A node of any type the server knows, built-in or registered by the embedder with `createSluice({ nodeTypes })`:
 * `node("geocode", "geo", { column: "address" })`. A built-in type gets its typed config.
 */
export function node<T extends string>(
  type: T,
  id: string,
  config: NodeConfigOf<T>,
  options?: NodeOptions,
): NodeBuilder<T> {
  return new NodeBuilder(id, type, config, options);
}

const helper =
  <T extends NodeType>(type: T) =>
  (id: string, config: NodeConfigs[T], options?: NodeOptions): NodeBuilder<T> =>
    // NodeConfigOf<T> is NodeConfigs[T] for every built-in T; TypeScript cannot resolve that for a generic T
    node(type, id, config as NodeConfigOf<T>, options);

export const sourceDb = helper("source_db");
export const sourceApi = helper("source_api");
export const sourceFile = helper("source_file");
export const transform = helper("transform");
export const join = helper("join");
export const union = helper("union");
export const sql = helper("sql");
export const code = helper("code");
export const quality = helper("quality");
export const condition = helper("condition");
export const sinkDb = helper("sink_db");
export const sinkFile = helper("sink_file");
export const sinkApi = helper("sink_api");
export const migrate = helper("migrate");
export const notify = helper("notify");

export type PipelineDefinitionInput = Omit<PipelineCreate, "nodes" | "edges"> & {
  /** Every node of the pipeline; edges come from `.to()` calls (and `edges`, if given). */
  nodes: NodeBuilder[];
  edges?: Edge[];
};

/** Produces the API's pipeline JSON; throws when an edge points at a node missing from `nodes`. */
export function definePipeline(def: PipelineDefinitionInput): PipelineCreate {
  const ids = new Set(def.nodes.map((n) => n.id));
  const edges: Edge[] = [...(def.edges ?? [])];
  for (const node of def.nodes) {
    for (const next of node.downstream) {
      if (!ids.has(next.id))
        throw new Error(`pipeline "${def.name}": edge ${node.id} → ${next.id} points at a node not listed in nodes`);
      edges.push({ from: node.id, to: next.id });
    }
  }
  return { ...def, nodes: def.nodes.map((n) => n.toJSON()), edges };
}
