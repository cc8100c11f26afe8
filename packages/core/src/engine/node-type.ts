import type { z } from "zod";
import type { ResolvedConnection } from "../connectors/resolver.js";
import type { LogLevel } from "../model/run.js";
import type { PipelineNode } from "../model/node.js";
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
  /**
   * `text` (an answer's body, a driver's message) as an error may quote it: secrets masked first, whitespace runs
   * made one space, cut to `chars` characters. Cut before masking, a secret across the cut would show its start.
   */
  excerpt(text: string, chars: number): string;
  /** Renders `${param.X}`, `${var.X}`, `${run.id|date|started_at}` into plain text (URLs, paths, messages). */
  render(text: string): Promise<string>;
  /** Renders a SQL string: every `${...}` becomes a `?` placeholder with its value bound, never raw SQL text. */
  renderSql(sql: string): Promise<BoundSql>;
  /**
   * A stored connection with secrets decrypted and file paths confined to the roots; unknown conn_id fails the node.
   */
  connection(connId: string): Promise<ResolvedConnection>;
  /** Outbound HTTP (source_api, sink_api, notify): SSRF-guarded, redirects re-checked. */
  readonly http: HttpClient;
  /**
   * Writes rows to the dead-letter queue for this node (secrets masked in rows and error; the first ones, as many as an
   * entry keeps). The rows are read until the promise settles, a piece at a time: change them only after. It is written
   * even when the node's timeout or a cancel comes meanwhile.
   */
  deadLetter(rows: Row[], error: string): Promise<void>;
}

/** What a node returns. */
export interface NodeResult {
  output: DataSet;
  /** Rows written/delivered, when that differs from `output.rows.length` (sinks). */
  rowCount?: number;
  /** `condition` false: every downstream node is marked `skipped`; the run still succeeds. */
  skipDownstream?: boolean;
  /**
   * What the node did, in a few words (`transform: 4 rules, 20 rows in, 18 rows out`): the engine's one log line for
   * the node's success carries it after the row count and the time, masked like every log line.
   */
  summary?: string;
}

export interface TableRef {
  /** Connection id, or "" when the node names none. */
  conn_id: string;
  table: string;
}

/** What one node touches outside its pipeline (lineage, impact, used-by). */
export interface NodeReferences {
  connections: string[];
  tablesRead: TableRef[];
  tablesWritten: TableRef[];
  filesRead: string[];
  filesWritten: string[];
  apisRead: string[];
  apisWritten: string[];
  variables: string[];
}

/**
 * What a node type declares it references, from a node's stored config (which may be incomplete or invalid, so
 * read it defensively). `config.conn_id` and every `${var.KEY}` are found for every type without being listed here.
 */
export type DeclaredReferences = Partial<Omit<NodeReferences, "variables">>;

/**
 * One node type, described once: its name, config schema (validation), whether it has effects outside the run
 * (not executed by a dry run; a node with effects may end a branch), what it references (lineage, impact,
 * used-by) and how it runs. One file per built-in type under `engine/nodes/`, one registry (`nodes/index.ts`).
 */
export interface NodeTypeDefinition<C = Record<string, unknown>, T extends string = string> {
  readonly type: T;
  readonly configSchema: z.ZodType<C, unknown>;
  /** Writes, sends or changes something outside the run (tables, files, APIs, messages). */
  readonly effects: boolean;
  references(config: Readonly<Record<string, unknown>>): DeclaredReferences;
  run(ctx: NodeContext, config: C, inputs: DataSet[]): Promise<NodeResult>;
}

/** Node types by type name: the built-in registry, or it merged with `createSluice({ nodeTypes })`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type NodeTypeRegistry = Readonly<Partial<Record<string, NodeTypeDefinition<any>>>>;

/** The definition of `type` in `registry` (own keys only: `constructor` or `__proto__` are not node types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function lookupNodeType(registry: NodeTypeRegistry, type: string): NodeTypeDefinition<any> | undefined {
  return Object.hasOwn(registry, type) ? registry[type] : undefined;
}

/**
 * Defines a node type with its config type inferred from its schema. `effects` defaults to false and `references`
 * to nothing beyond `conn_id` and `${var.*}`.
 */
export function defineNodeType<S extends z.ZodType, T extends string = string>(def: {
  type: T;
  configSchema: S;
  effects?: boolean;
  references?(config: Readonly<Record<string, unknown>>): DeclaredReferences;
  run(ctx: NodeContext, config: z.infer<S>, inputs: DataSet[]): Promise<NodeResult>;
}): NodeTypeDefinition<z.infer<S>, T> {
  return {
    type: def.type,
    configSchema: def.configSchema as z.ZodType<z.infer<S>, unknown>,
    effects: def.effects ?? false,
    references: def.references ?? (() => ({})),
    run: def.run,
  };
}
