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
} from "@sluice/core/model";
import { Transport, type ClientOptions } from "./transport.js";

const enc = encodeURIComponent;

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

  readonly system = {
    info: (): Promise<SystemInfo> => this.transport.request("GET", "/system/info"),
  };
}
