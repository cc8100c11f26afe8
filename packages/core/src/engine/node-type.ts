import type { z } from "zod";
import type { ResolvedConnection } from "../connectors/resolver.js";
import type { LogLevel } from "../model/run.js";
import type { NodeType, PipelineNode } from "../model/node.js";
import type { DataSet, Row } from "./dataset.js";
import type { HttpClient } from "./http/http-client.js";

/** SQL text with `?` placeholders and the values bound to them (knex `raw` style). */
export interface BoundSql {
  sql: string;
  bindings: unknown[];
}

/**
 * Everything a node sees while it runs. Built by the executor (and by tests through `createNodeContext`).
 * Config values are NOT templated up front: a node renders the fields it uses, so SQL can be bound and secrets are
 * only decrypted when needed.
 */
export interface NodeContext {
  readonly runId: string;
  readonly pipelineId: string;
  readonly pipelineName: string;
  readonly node: PipelineNode;
  /** 1-based attempt number. */
  readonly attempt: number;
  /** Aborted on timeout or cancellation of the attempt; pass it to drivers so work really stops. */
  readonly signal: AbortSignal;
  /** Seconds this attempt may take (the node's `timeout`). */
  readonly timeoutMs: number;
  /** Effective run params (pipeline defaults overridden by the trigger's params). */
  readonly params: Readonly<Record<string, string>>;
  /** Upstream node ids in edge order; `inputs[i]` came from `inputIds[i]`. */
  readonly inputIds: readonly string[];
  /** Directories file nodes may read and write in (already resolved to absolute paths). */
  readonly fileRoots: readonly string[];
  /** The server's own state files (store database, secrets key, JWT secret): refused whatever the roots. */
  readonly stateFiles: readonly string[];
  /** Appends a line to the run's log for this node; secrets the context resolved are masked (`********`). */
  log(level: LogLevel, message: string): void;
  /** Renders `${param.X}`, `${var.X}`, `${run.id|date|started_at}` into plain text (URLs, paths, messages). */
  render(text: string): Promise<string>;
  /** Renders a SQL string: every `${...}` becomes a `?` placeholder with its value bound, never raw SQL text. */
  renderSql(sql: string): Promise<BoundSql>;
  /** A stored connection with secrets decrypted and file paths confined to the roots; unknown conn_id fails the node. */
  connection(connId: string): Promise<ResolvedConnection>;
  /** Outbound HTTP (source_api, sink_api, notify): SSRF-guarded, redirects re-checked. */
  readonly http: HttpClient;
  /** Writes rows to the dead-letter queue for this node (secrets masked in rows and error). */
  deadLetter(rows: Row[], error: string): Promise<void>;
}

/** What a node returns. */
export interface NodeResult {
  output: DataSet;
  /** Rows written/delivered, when that differs from `output.rows.length` (sinks). */
  rowCount?: number;
  /** `condition` false: every downstream node is marked `skipped`; the run still succeeds. */
  skipDownstream?: boolean;
}

/** One node type: its config schema (validation) and how it runs. One file per type under `engine/nodes/`. */
export interface NodeTypeDefinition<C = Record<string, unknown>> {
  readonly type: NodeType;
  readonly configSchema: z.ZodType<C, unknown>;
  run(ctx: NodeContext, config: C, inputs: DataSet[]): Promise<NodeResult>;
}

/** Helper so each node file gets its config type inferred from its schema. */
export function defineNodeType<S extends z.ZodType>(def: {
  type: NodeType;
  configSchema: S;
  run(ctx: NodeContext, config: z.infer<S>, inputs: DataSet[]): Promise<NodeResult>;
}): NodeTypeDefinition<z.infer<S>> {
  return def as NodeTypeDefinition<z.infer<S>>;
}
