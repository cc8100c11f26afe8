import { SluiceApiError } from "./errors.js";

export interface ClientOptions {
  /** Server base URL, e.g. `http://localhost:8080` (the `/api` prefix is added). */
  baseUrl: string;
  /** A JWT from login or an API key, sent as `Authorization: Bearer`. */
  token?: string;
  /** An API key sent as `X-API-Key`. */
  apiKey?: string;
  /** Send cookies (browser sessions). */
  credentials?: "include" | "same-origin" | "omit";
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  /** The path is below the server root (`/health`, `/metrics`), not below `/api`. */
  root?: boolean;
}

export class Transport {
  private readonly fetchImpl: typeof fetch;
  private readonly base: string;

  constructor(private readonly options: ClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.base = options.baseUrl.replace(/\/+$/, "");
  }

  /** The bearer token (JWT or API key) this client sends, if any. */
  get token(): string | undefined {
    return this.options.token ?? this.options.apiKey;
  }

  setToken(token: string | undefined): void {
    (this.options as { token?: string }).token = token;
  }

  url(path: string, query?: Query, root = false): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(key, String(value));
    }
    const qs = search.toString();
    return `${this.base}${root ? "" : "/api"}${path}${qs ? `?${qs}` : ""}`;
  }

  async raw(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: "application/json", ...this.options.headers, ...options.headers };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (this.options.apiKey) headers["x-api-key"] = this.options.apiKey;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    const init: RequestInit = { method, headers, body };
    if (this.options.credentials) init.credentials = this.options.credentials;
    return this.fetchImpl(this.url(path, options.query, options.root), init);
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.raw(method, path, options);
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!response.ok) {
      const message =
        typeof parsed === "object" && parsed !== null && typeof (parsed as { error?: unknown }).error === "string"
          ? (parsed as { error: string }).error
          : `HTTP ${response.status}`;
      throw new SluiceApiError(response.status, message, parsed);
    }
    return parsed as T;
  }
}
