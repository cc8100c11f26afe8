import { isTerminalRunStatus } from "@sluice/core/event-types";
import { fillPath, OPERATIONS } from "@sluice/core/operations";
import type {
  OperationId,
  AdminResetPasswordRequest,
  ChangePasswordRequest,
  CreateUserRequest,
  LoginResponse,
  OperationTypes,
  Page,
  Pipeline,
  PipelineCreate,
  PipelineExport,
  PipelineSummary,
  PipelineUpdate,
  BulkRequest,
  LogLevel,
  Run,
  RunWithNodes,
  Connection,
  ConnectionCreate,
  ConnectionUpdate,
  Variable,
  VariableUpsert,
  Impact,
  WebhookAccepted,
} from "@sluice/core/model";
import { applyPipeline, type ApplyResult } from "./apply.js";
import {
  subscribeEvents,
  type StreamEvent,
  type StreamFilter,
  type SubscribeOptions,
  type Subscription,
} from "./events.js";
import { Transport, type ClientOptions, type Query } from "./transport.js";

/** @deprecated the model's name is `Impact`. */
export type PipelineImpact = Impact;

type Params<K extends OperationId> = OperationTypes[K]["params"];

/** What `call(id, input)` takes: path parameters (when the path has any), query, body and extra headers. */
export type CallInput<K extends OperationId> = ([keyof Params<K>] extends [never]
  ? { params?: undefined }
  : { params: Params<K> }) & {
  query?: OperationTypes[K]["query"];
  body?: OperationTypes[K]["body"];
  headers?: Record<string, string>;
};

/** The answer of operation `K`. */
export type CallOutput<K extends OperationId> = OperationTypes[K]["response"];

type NoParamsOperation = { [K in OperationId]: [keyof Params<K>] extends [never] ? K : never }[OperationId];

export class SluiceClient {
  readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  /**
   * Calls one operation of the API by its id in the operation table (`OPERATIONS`, the same table the server
   * registers its routes from): method and path come from there, input and output types from `OperationTypes`.
   * Every method below is a named shortcut for one call.
   */
  call<K extends NoParamsOperation>(id: K, input?: CallInput<K>): Promise<CallOutput<K>>;
  call<K extends OperationId>(id: K, input: CallInput<K>): Promise<CallOutput<K>>;
  call<K extends OperationId>(id: K, input: CallInput<K> = {} as CallInput<K>): Promise<CallOutput<K>> {
    const spec = OPERATIONS[id];
    const path = fillPath(spec.path, (input.params ?? {}) as Record<string, string>);
    return this.transport.request(spec.method, path, {
      query: input.query as Query | undefined,
      body: input.body,
      headers: input.headers,
      root: "root" in spec,
    });
  }

  readonly pipelines = {
    list: () => this.call("listPipelines") as Promise<PipelineSummary[]>,
    listPage: (page: { page?: number; per_page?: number }) =>
      this.call("listPipelines", { query: { page: page.page ?? 1, per_page: page.per_page } }) as Promise<
        Page<PipelineSummary>
      >,
    get: (id: string) => this.call("getPipeline", { params: { id } }),
    create: (pipeline: PipelineCreate) => this.call("createPipeline", { body: pipeline }),
    update: (id: string, patch: PipelineUpdate) => this.call("updatePipeline", { params: { id }, body: patch }),
    delete: (id: string): Promise<void> => this.call("deletePipeline", { params: { id } }),
    clone: (id: string) => this.call("clonePipeline", { params: { id } }),
    export: (id: string) => this.call("exportPipeline", { params: { id } }),
    import: (document: PipelineExport | PipelineCreate): Promise<Pipeline> =>
      this.call("importPipeline", { body: document as OperationTypes["importPipeline"]["body"] }),
    validate: (id: string) => this.call("validatePipeline", { params: { id } }),
    validateNodes: (id: string, request: OperationTypes["validateNodes"]["body"] = {}) =>
      this.call("validateNodes", { params: { id }, body: request }),
    versions: (id: string) => this.call("listVersions", { params: { id } }),
    /** One version with the definition it recorded (`snapshot`), e.g. to diff two versions. */
    version: (id: string, versionId: string) => this.call("getVersion", { params: { id, version_id: versionId } }),
    rollback: (id: string, versionId: string) =>
      this.call("rollback", { params: { id }, body: { version_id: versionId } }),
    bulk: (request: BulkRequest) => this.call("bulkPipelines", { body: request }),
    /** Create or update by name, idempotently (pipelines as code; see `definePipeline`). */
    apply: (definition: PipelineCreate): Promise<ApplyResult> => applyPipeline(this.pipelines, definition),
  };

  /**
   * Authentication and users. `login` and `changePassword` keep the returned token on this client, so later
   * calls are authenticated; `logout` forgets it.
   */
  readonly auth = {
    login: async (username: string, password: string): Promise<LoginResponse> => {
      const login = await this.call("login", { body: { username, password } });
      this.transport.setToken(login.token);
      return login;
    },
    logout: async (): Promise<void> => {
      await this.call("logout");
      this.transport.setToken(undefined);
    },
    me: () => this.call("getMe"),
    setup: () => this.call("getSetup"),
    users: () => this.call("listUsers"),
    createUser: (user: CreateUserRequest) => this.call("createUser", { body: user }),
    changePassword: async (request: ChangePasswordRequest): Promise<LoginResponse> => {
      const login = await this.call("changePassword", { body: request });
      this.transport.setToken(login.token);
      return login;
    },
    adminResetPassword: (request: AdminResetPasswordRequest) => this.call("adminResetPassword", { body: request }),
  };

  /** Triggering, following and controlling runs; the dead-letter queue. */
  readonly runs = {
    trigger: (pipelineId: string, params: Record<string, string> = {}) =>
      this.call("triggerRun", { params: { id: pipelineId }, body: { params } }),
    dryRun: (pipelineId: string, params: Record<string, string> = {}) =>
      this.call("dryRun", { params: { id: pipelineId }, body: { params } }),
    backfill: (pipelineId: string, request: OperationTypes["backfill"]["body"]) =>
      this.call("backfill", { params: { id: pipelineId }, body: request }),
    /** The 50 most recent runs of a pipeline. */
    list: (pipelineId: string) => this.call("listRuns", { params: { id: pipelineId } }) as Promise<Run[]>,
    listPage: (pipelineId: string, page: { page?: number; per_page?: number }) =>
      this.call("listRuns", {
        params: { id: pipelineId },
        query: { page: page.page ?? 1, per_page: page.per_page },
      }) as Promise<Page<Run>>,
    /** The 50 most recent runs of a pipeline, each with its `node_runs` (one request for a runs × nodes grid). */
    listWithNodes: (pipelineId: string) =>
      this.call("listRuns", { params: { id: pipelineId }, query: { include: "nodes" } }) as Promise<RunWithNodes[]>,
    get: (runId: string) => this.call("getRun", { params: { run_id: runId } }),
    cancel: (runId: string) => this.call("cancelRun", { params: { run_id: runId } }),
    resume: (runId: string) => this.call("resumeRun", { params: { run_id: runId } }),
    logs: (runId: string, filter: { node_id?: string; level?: LogLevel } = {}) =>
      this.call("runLogs", { params: { run_id: runId }, query: filter }),
    exportLogs: (runId: string) => this.call("exportRunLogs", { params: { run_id: runId } }),
    preview: (runId: string, nodeId: string) =>
      this.call("nodePreview", { params: { run_id: runId, node_id: nodeId } }),
    profile: (runId: string, nodeId: string) =>
      this.call("nodeProfile", { params: { run_id: runId, node_id: nodeId } }),
    /** Run counts per UTC day: of every pipeline, or of `pipelineId` only. */
    calendar: (days?: number, pipelineId?: string) =>
      this.call("calendar", { query: { days, pipeline_id: pipelineId } }),
    /** Polls `GET /runs/{id}` until the run is success, failed or cancelled (or `timeoutMs` passes). */
    waitUntilTerminal: async (runId: string, options: { intervalMs?: number; timeoutMs?: number } = {}) => {
      const deadline = Date.now() + (options.timeoutMs ?? 60_000);
      for (;;) {
        const run = await this.runs.get(runId);
        if (isTerminalRunStatus(run.status)) return run;
        if (Date.now() > deadline)
          throw new Error(`run ${runId} still ${run.status} after ${options.timeoutMs ?? 60_000} ms`);
        await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
      }
    },
    /** Same as `waitUntilTerminal`. */
    wait: (runId: string, options: { intervalMs?: number; timeoutMs?: number } = {}) =>
      this.runs.waitUntilTerminal(runId, options),
    dlq: (pipelineId: string, query: { include_resolved?: boolean; limit?: number } = {}) =>
      this.call("listDlq", { params: { id: pipelineId }, query }),
    resolveDlq: (pipelineId: string, dlqId: string) => this.call("resolveDlq", { params: { id: pipelineId, dlqId } }),
  };

  readonly system = {
    info: () => this.call("systemInfo"),
    /** Deletes finished runs older than `days` with their logs, outputs and DLQ entries (admin). */
    purge: (days: number) => this.call("purge", { body: { days } }),
  };

  readonly connections = {
    types: () => this.call("connectionTypes"),
    list: () => this.call("listConnections") as Promise<Connection[]>,
    listPage: (page: { page?: number; per_page?: number }) =>
      this.call("listConnections", { query: { page: page.page ?? 1, per_page: page.per_page } }) as Promise<
        Page<Connection>
      >,
    get: (connId: string) => this.call("getConnection", { params: { conn_id: connId } }),
    create: (connection: ConnectionCreate) => this.call("createConnection", { body: connection }),
    update: (connId: string, patch: ConnectionUpdate) =>
      this.call("updateConnection", { params: { conn_id: connId }, body: patch }),
    delete: (connId: string): Promise<void> => this.call("deleteConnection", { params: { conn_id: connId } }),
    test: (connId: string) => this.call("testConnection", { params: { conn_id: connId } }),
    usedBy: (connId: string) => this.call("connectionUsedBy", { params: { conn_id: connId } }),
  };

  readonly variables = {
    list: () => this.call("listVariables") as Promise<Variable[]>,
    listPage: (page: { page?: number; per_page?: number }) =>
      this.call("listVariables", { query: { page: page.page ?? 1, per_page: page.per_page } }) as Promise<
        Page<Variable>
      >,
    get: (key: string) => this.call("getVariable", { params: { key } }),
    /** Creates or updates. */
    set: (variable: VariableUpsert) => this.call("upsertVariable", { body: variable }),
    update: (key: string, value: OperationTypes["updateVariable"]["body"]) =>
      this.call("updateVariable", { params: { key }, body: value }),
    delete: (key: string): Promise<void> => this.call("deleteVariable", { params: { key } }),
    usedBy: (key: string) => this.call("variableUsedBy", { params: { key } }),
  };

  readonly insights = {
    dashboard: () => this.call("dashboard"),
    summary: () => this.call("pipelineSummary"),
    search: (q: string, limit?: number) => this.call("search", { query: { q, limit } }),
    lineage: () => this.call("lineage"),
    impact: (pipelineId: string) => this.call("impact", { params: { id: pipelineId } }),
  };

  readonly scheduler = {
    status: () => this.call("schedulerStatus"),
    deps: (pipelineId: string) => this.call("dependencies", { params: { id: pipelineId } }),
  };

  /** Triggers a run through the pipeline's webhook (its own token, no API credentials needed). */
  webhook(
    pipelineId: string,
    token: string,
    options: { params?: Record<string, string>; idempotencyKey?: string } = {},
  ): Promise<WebhookAccepted> {
    return this.call("webhook", {
      params: { id: pipelineId },
      headers: {
        "x-webhook-token": token,
        ...(options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {}),
      },
      body: options.params ? { params: options.params } : {},
    });
  }

  /** Live run/node/log events over the WebSocket (`/ws`), with reconnect and catch-up. */
  readonly events = {
    subscribe: (
      filter: StreamFilter,
      handler: (event: StreamEvent) => void,
      options: Omit<SubscribeOptions, keyof StreamFilter> = {},
    ): Subscription => this.subscribe(handler, { ...options, ...filter }),
  };

  /** Live run/node/log events over the WebSocket (`/ws`), authenticated with this client's token. */
  subscribe(onEvent: (event: StreamEvent) => void, options: SubscribeOptions = {}): Subscription {
    const url = new URL(this.transport.url(OPERATIONS.events.path));
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const token = this.transport.token;
    if (token) url.searchParams.set("token", token);
    return subscribeEvents(url.toString(), onEvent, options);
  }
}
