import type {
  AdminResetPasswordRequest,
  ChangePasswordRequest,
  CreateUserRequest,
  LoginResponse,
  SetupStatus,
  User,
  BulkRequest,
  BulkResponse,
  Page,
  Pipeline,
  PipelineCreate,
  PipelineExport,
  PipelineSummary,
  PipelineUpdate,
  PipelineVersion,
  SystemInfo,
  ValidateNodesRequest,
  ValidateNodesResponse,
  ValidationResult,
  CalendarDay,
  DlqEntry,
  DryRunNodeResult,
  LogEntry,
  LogLevel,
  NodePreview,
  NodeProfile,
  Run,
  RunAccepted,
  RunWithNodes,
  Dashboard,
  PipelineRunSummary,
  SearchResult,
  RunStatus,
  Connection,
  ConnectionCreate,
  ConnectionTestResult,
  ConnectionTypeInfo,
  ConnectionUpdate,
  Variable,
  VariableUpsert,
} from "@sluice/core/model";
import { applyPipeline, type ApplyResult } from "./apply.js";
import { subscribeEvents, type StreamEvent, type SubscribeOptions, type Subscription } from "./events.js";
import { Transport, type ClientOptions } from "./transport.js";

const enc = encodeURIComponent;

export interface LineageGraph {
  nodes: { id: string; type: string; name: string }[];
  edges: { from: string; to: string; pipeline_id: string }[];
}
export interface PipelineImpact {
  pipeline_id: string;
  downstream: { pipeline_id: string; name: string; depth: number; via: "depends_on" | "table"; detail: string }[];
}
export interface SchedulerStatusEntry {
  pipeline_id: string;
  pipeline_name: string;
  schedule: string | null;
  timezone: string;
  enabled: boolean;
  next_run: string | null;
  last_run: string | null;
}
export interface DependencyStatus {
  pipeline_id: string;
  name: string | null;
  last_status: RunStatus | null;
  satisfied: boolean;
}
/** A pipeline that uses a connection or variable. */
export interface UsedBy {
  pipeline_id: string;
  name: string;
  node_ids: string[];
}
export interface WebhookAccepted {
  run_id: string;
  pipeline_id: string;
  status: string;
}

export class SluiceClient {
  readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  readonly pipelines = {
    list: (): Promise<PipelineSummary[]> => this.transport.request("GET", "/pipelines"),
    listPage: (page: { page?: number; per_page?: number }): Promise<Page<PipelineSummary>> =>
      this.transport.request("GET", "/pipelines", { query: { page: page.page ?? 1, per_page: page.per_page } }),
    get: (id: string): Promise<Pipeline> => this.transport.request("GET", `/pipelines/${enc(id)}`),
    create: (pipeline: PipelineCreate): Promise<Pipeline> => this.transport.request("POST", "/pipelines", { body: pipeline }),
    update: (id: string, patch: PipelineUpdate): Promise<Pipeline> =>
      this.transport.request("PUT", `/pipelines/${enc(id)}`, { body: patch }),
    delete: (id: string): Promise<void> => this.transport.request("DELETE", `/pipelines/${enc(id)}`),
    clone: (id: string): Promise<Pipeline> => this.transport.request("POST", `/pipelines/${enc(id)}/clone`),
    export: (id: string): Promise<PipelineExport> => this.transport.request("GET", `/pipelines/${enc(id)}/export`),
    import: (document: PipelineExport | PipelineCreate): Promise<Pipeline> =>
      this.transport.request("POST", "/pipelines/import", { body: document }),
    validate: (id: string): Promise<ValidationResult> => this.transport.request("GET", `/pipelines/${enc(id)}/validate`),
    validateNodes: (id: string, request: ValidateNodesRequest = {}): Promise<ValidateNodesResponse> =>
      this.transport.request("POST", `/pipelines/${enc(id)}/validate-nodes`, { body: request }),
    versions: (id: string): Promise<PipelineVersion[]> => this.transport.request("GET", `/pipelines/${enc(id)}/versions`),
    rollback: (id: string, versionId: string): Promise<Pipeline> =>
      this.transport.request("POST", `/pipelines/${enc(id)}/rollback`, { body: { version_id: versionId } }),
    bulk: (request: BulkRequest): Promise<BulkResponse> => this.transport.request("POST", "/pipelines/bulk", { body: request }),
    /** Create or update by name, idempotently (pipelines as code; see `definePipeline`). */
    apply: (definition: PipelineCreate): Promise<ApplyResult> => applyPipeline(this.pipelines, definition),
  };

  /**
   * Authentication and users. `login` and `changePassword` keep the returned token on this client, so later
   * calls are authenticated; `logout` forgets it.
   */
  readonly auth = {
    login: async (username: string, password: string): Promise<LoginResponse> => {
      const login = await this.transport.request<LoginResponse>("POST", "/auth/login", { body: { username, password } });
      this.transport.setToken(login.token);
      return login;
    },
    logout: async (): Promise<void> => {
      await this.transport.request("POST", "/auth/logout");
      this.transport.setToken(undefined);
    },
    me: (): Promise<User> => this.transport.request("GET", "/auth/me"),
    setup: (): Promise<SetupStatus> => this.transport.request("GET", "/auth/setup"),
    users: (): Promise<User[]> => this.transport.request("GET", "/auth/users"),
    createUser: (user: CreateUserRequest): Promise<User> => this.transport.request("POST", "/auth/users", { body: user }),
    changePassword: async (request: ChangePasswordRequest): Promise<LoginResponse> => {
      const login = await this.transport.request<LoginResponse>("POST", "/auth/change-password", { body: request });
      this.transport.setToken(login.token);
      return login;
    },
    adminResetPassword: (request: AdminResetPasswordRequest): Promise<User> =>
      this.transport.request("POST", "/auth/admin-reset-password", { body: request }),
  };

  /** Triggering, following and controlling runs; the dead-letter queue. */
  readonly runs = {
    trigger: (pipelineId: string, params: Record<string, string> = {}): Promise<RunAccepted> =>
      this.transport.request("POST", `/pipelines/${enc(pipelineId)}/run`, { body: { params } }),
    dryRun: (pipelineId: string, params: Record<string, string> = {}): Promise<Record<string, DryRunNodeResult>> =>
      this.transport.request("POST", `/pipelines/${enc(pipelineId)}/dry-run`, { body: { params } }),
    backfill: (pipelineId: string, request: { start_date: string; end_date: string; params?: Record<string, string> }): Promise<string[]> =>
      this.transport.request("POST", `/pipelines/${enc(pipelineId)}/backfill`, { body: request }),
    /** The 50 most recent runs of a pipeline. */
    list: (pipelineId: string): Promise<Run[]> => this.transport.request("GET", `/pipelines/${enc(pipelineId)}/runs`),
    listPage: (pipelineId: string, page: { page?: number; per_page?: number }): Promise<Page<Run>> =>
      this.transport.request("GET", `/pipelines/${enc(pipelineId)}/runs`, { query: { page: page.page ?? 1, per_page: page.per_page } }),
    get: (runId: string): Promise<RunWithNodes> => this.transport.request("GET", `/runs/${enc(runId)}`),
    cancel: (runId: string): Promise<{ id: string; status: "cancelled" }> => this.transport.request("POST", `/runs/${enc(runId)}/cancel`),
    resume: (runId: string): Promise<{ id: string; status: "pending" }> => this.transport.request("POST", `/runs/${enc(runId)}/resume`),
    logs: (runId: string, filter: { node_id?: string; level?: LogLevel } = {}): Promise<LogEntry[]> =>
      this.transport.request("GET", `/runs/${enc(runId)}/logs`, { query: filter }),
    exportLogs: (runId: string): Promise<string> => this.transport.request("GET", `/runs/${enc(runId)}/logs/export`),
    preview: (runId: string, nodeId: string): Promise<NodePreview> =>
      this.transport.request("GET", `/runs/${enc(runId)}/nodes/${enc(nodeId)}/preview`),
    profile: (runId: string, nodeId: string): Promise<NodeProfile> =>
      this.transport.request("GET", `/runs/${enc(runId)}/nodes/${enc(nodeId)}/profile`),
    calendar: (days?: number): Promise<CalendarDay[]> => this.transport.request("GET", "/runs/calendar", { query: { days } }),
    /** Polls `GET /runs/{id}` until the run is success, failed or cancelled (or `timeoutMs` passes). */
    waitUntilTerminal: async (runId: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<RunWithNodes> => {
      const deadline = Date.now() + (options.timeoutMs ?? 60_000);
      for (;;) {
        const run = await this.runs.get(runId);
        if (run.status === "success" || run.status === "failed" || run.status === "cancelled") return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${options.timeoutMs ?? 60_000} ms`);
        await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
      }
    },
    /** Same as `waitUntilTerminal`. */
    wait: (runId: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<RunWithNodes> =>
      this.runs.waitUntilTerminal(runId, options),
    dlq: (pipelineId: string, query: { include_resolved?: boolean; limit?: number } = {}): Promise<DlqEntry[]> =>
      this.transport.request("GET", `/pipelines/${enc(pipelineId)}/dlq`, { query }),
    resolveDlq: (pipelineId: string, dlqId: string): Promise<{ id: string; status: "resolved" }> =>
      this.transport.request("POST", `/pipelines/${enc(pipelineId)}/dlq/${enc(dlqId)}/resolve`),
  };

  readonly system = {
    info: (): Promise<SystemInfo> => this.transport.request("GET", "/system/info"),
    /** Deletes finished runs older than `days` with their logs, outputs and DLQ entries (admin). */
    purge: (days: number): Promise<{ deleted: number; days: number }> => this.transport.request("POST", "/system/purge", { body: { days } }),
  };

  readonly connections = {
    types: (): Promise<ConnectionTypeInfo[]> => this.transport.request("GET", "/connection-types"),
    list: (): Promise<Connection[]> => this.transport.request("GET", "/connections"),
    listPage: (page: { page?: number; per_page?: number }): Promise<Page<Connection>> =>
      this.transport.request("GET", "/connections", { query: { page: page.page ?? 1, per_page: page.per_page } }),
    get: (connId: string): Promise<Connection> => this.transport.request("GET", `/connections/${enc(connId)}`),
    create: (connection: ConnectionCreate): Promise<Connection> => this.transport.request("POST", "/connections", { body: connection }),
    update: (connId: string, patch: ConnectionUpdate): Promise<Connection> =>
      this.transport.request("PUT", `/connections/${enc(connId)}`, { body: patch }),
    delete: (connId: string): Promise<void> => this.transport.request("DELETE", `/connections/${enc(connId)}`),
    test: (connId: string): Promise<ConnectionTestResult> => this.transport.request("POST", `/connections/${enc(connId)}/test`),
    usedBy: (connId: string): Promise<UsedBy[]> => this.transport.request("GET", `/connections/${enc(connId)}/used-by`),
  };

  readonly variables = {
    list: (): Promise<Variable[]> => this.transport.request("GET", "/variables"),
    listPage: (page: { page?: number; per_page?: number }): Promise<Page<Variable>> =>
      this.transport.request("GET", "/variables", { query: { page: page.page ?? 1, per_page: page.per_page } }),
    get: (key: string): Promise<Variable> => this.transport.request("GET", `/variables/${enc(key)}`),
    /** Creates or updates. */
    set: (variable: VariableUpsert): Promise<Variable> => this.transport.request("POST", "/variables", { body: variable }),
    update: (key: string, value: { value: string; type?: "string" | "secret" }): Promise<Variable> =>
      this.transport.request("PUT", `/variables/${enc(key)}`, { body: value }),
    delete: (key: string): Promise<void> => this.transport.request("DELETE", `/variables/${enc(key)}`),
    usedBy: (key: string): Promise<UsedBy[]> => this.transport.request("GET", `/variables/${enc(key)}/used-by`),
  };

  readonly insights = {
    dashboard: (): Promise<Dashboard> => this.transport.request("GET", "/dashboard"),
    summary: (): Promise<PipelineRunSummary[]> => this.transport.request("GET", "/pipelines/summary"),
    search: (q: string, limit?: number): Promise<SearchResult[]> => this.transport.request("GET", "/search", { query: { q, limit } }),
    lineage: (): Promise<LineageGraph> => this.transport.request("GET", "/lineage"),
    impact: (pipelineId: string): Promise<PipelineImpact> => this.transport.request("GET", `/pipelines/${enc(pipelineId)}/impact`),
  };

  readonly scheduler = {
    status: (): Promise<SchedulerStatusEntry[]> => this.transport.request("GET", "/scheduler/status"),
    deps: (pipelineId: string): Promise<DependencyStatus[]> => this.transport.request("GET", `/pipelines/${enc(pipelineId)}/deps`),
  };

  /** Triggers a run through the pipeline's webhook (its own token, no API credentials needed). */
  webhook(pipelineId: string, token: string, options: { params?: Record<string, string>; idempotencyKey?: string } = {}): Promise<WebhookAccepted> {
    return this.transport.request("POST", `/pipelines/${enc(pipelineId)}/webhook`, {
      headers: { "x-webhook-token": token, ...(options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {}) },
      body: options.params ? { params: options.params } : {},
    });
  }

  /** Live run/node/log events over the WebSocket (`/ws`), with reconnect and catch-up. */
  readonly events = {
    subscribe: (
      filter: { run_id?: string; pipeline_id?: string; since?: number },
      handler: (event: StreamEvent) => void,
      options: Omit<SubscribeOptions, "run_id" | "pipeline_id" | "since"> = {},
    ): Subscription => this.subscribe(handler, { ...options, ...filter }),
  };

  /** Live run/node/log events over the WebSocket (`/ws`), authenticated with this client's token. */
  subscribe(onEvent: (event: StreamEvent) => void, options: SubscribeOptions = {}): Subscription {
    const url = new URL(this.transport.url("/ws"));
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const token = this.transport.token;
    if (token) url.searchParams.set("token", token);
    return subscribeEvents(url.toString(), onEvent, options);
  }
}
