import { z } from "zod";
import type { Page } from "./common.js";
import { PaginationQuerySchema } from "./common.js";
import { ConnectionCreateSchema, ConnectionUpdateSchema } from "./connection.js";
import type { Connection, ConnectionTestResult, ConnectionTypeInfo } from "./connection.js";
import { DlqQuerySchema, type DlqEntry } from "./dlq.js";
import type {
  Dashboard,
  DependencyStatus,
  Impact,
  LineageGraph,
  PipelineRunSummary,
  SchedulerStatusEntry,
  SearchResult,
  UsedBy,
} from "./insights.js";
import { SearchQuerySchema } from "./insights.js";
import type { OperationId, OPERATIONS, PathParams } from "./operations.js";
import {
  BulkRequestSchema,
  PipelineCreateSchema,
  PipelineImportSchema,
  PipelineUpdateSchema,
  ValidateNodesRequestSchema,
  type BulkResponse,
  type Pipeline,
  type PipelineExport,
  type PipelineSummary,
  type ValidateNodesResponse,
  type ValidationResult,
} from "./pipeline.js";
import {
  BackfillRequestSchema,
  CalendarQuerySchema,
  LogsQuerySchema,
  RunsListQuerySchema,
  TriggerRunRequestSchema,
  WebhookBodySchema,
  type CalendarDay,
  type DryRunNodeResult,
  type LogEntry,
  type NodePreview,
  type NodeProfile,
  type RunAccepted,
  type RunListEntry,
  type RunWithNodes,
  type WebhookAccepted,
} from "./run.js";
import { PurgeRequestSchema, type PurgeResult, type SystemInfo } from "./system.js";
import {
  AdminResetPasswordRequestSchema,
  ChangePasswordRequestSchema,
  CreateUserRequestSchema,
  LoginRequestSchema,
  type LoginResponse,
  type SetupStatus,
  type User,
} from "./user.js";
import { VariableUpdateSchema, VariableUpsertSchema, type Variable } from "./variable.js";
import { RollbackRequestSchema, type PipelineVersion, type PipelineVersionDetail } from "./version.js";

/**
 * A response body: its TypeScript type, as a zod schema that accepts what the service returns (responses are
 * built by the service, not parsed; the schema carries the type to the client and a name to OpenAPI).
 */
const returns = <T>(name: string) => z.custom<T>(() => true).meta({ title: name });
const listOrPage = <T>(name: string) => returns<T[] | Page<T>>(name);
const noBody = z.undefined();

/** The request and response schemas of one operation. Path parameters are strings named in the path. */
export interface OperationIo {
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  readonly response: z.ZodType;
}

/**
 * Request and response schemas by operation id (the other half of the operation table in `operations.ts`; this
 * half imports zod, so the client takes only its types). The services parse their input with the same schemas.
 */
export const OPERATION_IO = {
  login: { body: LoginRequestSchema, response: returns<LoginResponse>("LoginResponse") },
  logout: { response: noBody },
  getSetup: { response: returns<SetupStatus>("SetupStatus") },
  getMe: { response: returns<User>("User") },
  listUsers: { response: returns<User[]>("Users") },
  createUser: { body: CreateUserRequestSchema, response: returns<User>("User") },
  changePassword: { body: ChangePasswordRequestSchema, response: returns<LoginResponse>("LoginResponse") },
  adminResetPassword: { body: AdminResetPasswordRequestSchema, response: returns<User>("User") },

  health: { response: returns<{ status: "ok" }>("Health") },
  rootMetrics: { response: returns<string>("MetricsText") },
  systemInfo: { response: returns<SystemInfo>("SystemInfo") },
  purge: { body: PurgeRequestSchema, response: returns<PurgeResult>("PurgeResult") },
  apiHealth: { response: returns<{ status: "ok" }>("Health") },
  metrics: { response: returns<string>("MetricsText") },
  openapi: { response: returns<Record<string, unknown>>("OpenApiDocument") },
  events: { response: noBody },

  dashboard: { response: returns<Dashboard>("Dashboard") },
  pipelineSummary: { response: returns<PipelineRunSummary[]>("PipelineRunSummaries") },
  search: { query: SearchQuerySchema, response: returns<SearchResult[]>("SearchResults") },
  lineage: { response: returns<LineageGraph>("LineageGraph") },
  impact: { response: returns<Impact>("Impact") },

  schedulerStatus: { response: returns<SchedulerStatusEntry[]>("SchedulerStatus") },
  dependencies: { response: returns<DependencyStatus[]>("Dependencies") },

  listPipelines: { query: PaginationQuerySchema, response: listOrPage<PipelineSummary>("PipelineSummaries") },
  createPipeline: { body: PipelineCreateSchema, response: returns<Pipeline>("Pipeline") },
  importPipeline: { body: PipelineImportSchema, response: returns<Pipeline>("Pipeline") },
  bulkPipelines: { body: BulkRequestSchema, response: returns<BulkResponse>("BulkResponse") },
  getPipeline: { response: returns<Pipeline>("Pipeline") },
  updatePipeline: { body: PipelineUpdateSchema, response: returns<Pipeline>("Pipeline") },
  patchPipeline: { body: PipelineUpdateSchema, response: returns<Pipeline>("Pipeline") },
  deletePipeline: { response: noBody },
  clonePipeline: { response: returns<Pipeline>("Pipeline") },
  exportPipeline: { response: returns<PipelineExport>("PipelineExport") },
  validatePipeline: { response: returns<ValidationResult>("ValidationResult") },
  validateNodes: {
    body: ValidateNodesRequestSchema,
    response: returns<ValidateNodesResponse>("ValidateNodesResponse"),
  },
  listVersions: { response: returns<PipelineVersion[]>("PipelineVersions") },
  getVersion: { response: returns<PipelineVersionDetail>("PipelineVersionDetail") },
  rollback: { body: RollbackRequestSchema, response: returns<Pipeline>("Pipeline") },
  webhook: { body: WebhookBodySchema.optional(), response: returns<WebhookAccepted>("WebhookAccepted") },

  triggerRun: { body: TriggerRunRequestSchema.optional(), response: returns<RunAccepted>("RunAccepted") },
  dryRun: { body: TriggerRunRequestSchema.optional(), response: returns<Record<string, DryRunNodeResult>>("DryRun") },
  backfill: { body: BackfillRequestSchema, response: returns<string[]>("RunIds") },
  listRuns: { query: RunsListQuerySchema, response: listOrPage<RunListEntry>("Runs") },
  listDlq: { query: DlqQuerySchema, response: returns<DlqEntry[]>("DlqEntries") },
  resolveDlq: { response: returns<{ id: string; status: "resolved" }>("DlqResolved") },
  calendar: { query: CalendarQuerySchema, response: returns<CalendarDay[]>("Calendar") },
  getRun: { response: returns<RunWithNodes>("RunWithNodes") },
  cancelRun: { response: returns<{ id: string; status: "cancelled" }>("RunCancelled") },
  resumeRun: { response: returns<{ id: string; status: "pending" }>("RunResumed") },
  runLogs: { query: LogsQuerySchema, response: returns<LogEntry[]>("LogEntries") },
  exportRunLogs: { response: returns<string>("LogText") },
  nodePreview: { response: returns<NodePreview>("NodePreview") },
  nodeProfile: { response: returns<NodeProfile>("NodeProfile") },

  connectionTypes: { response: returns<ConnectionTypeInfo[]>("ConnectionTypes") },
  listConnections: { query: PaginationQuerySchema, response: listOrPage<Connection>("Connections") },
  createConnection: { body: ConnectionCreateSchema, response: returns<Connection>("Connection") },
  getConnection: { response: returns<Connection>("Connection") },
  updateConnection: { body: ConnectionUpdateSchema, response: returns<Connection>("Connection") },
  deleteConnection: { response: noBody },
  testConnection: { response: returns<ConnectionTestResult>("ConnectionTestResult") },
  connectionUsedBy: { response: returns<UsedBy[]>("UsedBy") },

  listVariables: { query: PaginationQuerySchema, response: listOrPage<Variable>("Variables") },
  upsertVariable: { body: VariableUpsertSchema, response: returns<Variable>("Variable") },
  getVariable: { response: returns<Variable>("Variable") },
  updateVariable: { body: VariableUpdateSchema, response: returns<Variable>("Variable") },
  deleteVariable: { response: noBody },
  variableUsedBy: { response: returns<UsedBy[]>("UsedBy") },
} as const satisfies { readonly [K in OperationId]: OperationIo };

type IoOf<K extends OperationId> = (typeof OPERATION_IO)[K];

/** Query values travel as text; a caller may give numbers and booleans, which the URL spells out. */
type QueryInput<Q> = { [P in keyof Q]?: Q[P] | number | boolean };

/**
 * The TypeScript side of every operation: path parameters, query and body as a caller sends them, and the
 * response. The client's methods are typed from this map.
 */
export type OperationTypes = {
  [K in OperationId]: {
    params: PathParams<(typeof OPERATIONS)[K]["path"]>;
    query: IoOf<K> extends { query: infer Q extends z.ZodType } ? QueryInput<z.input<Q>> : undefined;
    body: IoOf<K> extends { body: infer B extends z.ZodType } ? z.input<B> : undefined;
    response: z.output<IoOf<K>["response"]>;
  };
};
