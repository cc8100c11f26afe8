import { SluiceError } from "../../errors.js";
import { httpAuthHeaders, httpBaseUrl } from "../../connectors/types/http.js";
import type { ResolvedConnection } from "../../connectors/resolver.js";
import type { NodeContext } from "../node-type.js";
import { ownProperty } from "../dataset.js";
import { describeUrl, headersForAnotherOrigin, type HttpResponse } from "./http-client.js";

/** The request-target keys shared by source_api, sink_api and notify (see `httpTarget` in `nodes/config-parts.ts`). */
export interface HttpTargetConfig {
  url?: string | undefined;
  conn_id?: string | undefined;
  path?: string | undefined;
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  query?: Record<string, string | number | boolean> | undefined;
}

export interface HttpTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** Base URL of an http connection: its built `uri` when that is a URL, else from the fields. */
function connectionBaseUrl(conn: ResolvedConnection): string {
  return /^https?:\/\//i.test(conn.uri) ? conn.uri : httpBaseUrl(conn);
}

const connectionHeaders = httpAuthHeaders;

/**
 * `path` below `base`. A base with a query (a connection `https://api.example.com/v1?api_key=…`) keeps it after the
 * joined path, followed by the path's own query.
 */
function joinUrl(base: string, path: string): string {
  if (!path) return base;
  if (/^https?:\/\//i.test(path)) return path;
  const [baseHead = "", baseQuery = ""] = base.split("#", 1)[0]!.split(/\?(.*)/s);
  const [pathHead = "", pathQuery = ""] = path.split(/\?(.*)/s);
  const joined = `${baseHead.replace(/\/+$/, "")}/${pathHead.replace(/^\/+/, "")}`;
  const query = [baseQuery, pathQuery].filter((q) => q !== "").join("&");
  return query ? `${joined}?${query}` : joined;
}

/**
 * Renders url/path/headers/query and merges the connection's base URL and auth (config headers win). With `conn_id`
 * the request must stay on the connection's origin (scheme, host, port): an absolute `url` or `path` elsewhere is
 * refused, so the connection's credentials are never sent to another host (docs/security.md).
 */
export async function resolveHttpTarget(
  ctx: NodeContext,
  config: HttpTargetConfig,
  defaultMethod: string,
): Promise<HttpTarget> {
  let url: string;
  let headers: Record<string, string> = {};
  const path = config.path ? await ctx.render(config.path) : "";
  if (config.conn_id) {
    const conn = await ctx.connection(config.conn_id);
    if (conn.type !== "http")
      throw new SluiceError("invalid", `connection '${conn.conn_id}' is of type ${conn.type}, not http`);
    const base = connectionBaseUrl(conn);
    url = joinUrl(config.url ? await ctx.render(config.url) : base, path);
    assertSameOrigin(url, base, conn.conn_id);
    headers = connectionHeaders(conn);
  } else if (config.url) {
    url = joinUrl(await ctx.render(config.url), path);
  } else {
    throw new SluiceError("invalid", "url or conn_id is required");
  }
  for (const [k, v] of Object.entries(config.headers ?? {})) headers[k.toLowerCase()] = await ctx.render(v);
  if (config.query) {
    const u = new URL(url);
    for (const [k, v] of Object.entries(config.query)) u.searchParams.set(k, await ctx.render(String(v)));
    url = u.href;
  }
  return { url, method: (config.method ?? defaultMethod).toUpperCase(), headers };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new SluiceError("invalid", `invalid URL '${describeUrl(url)}'`);
  }
}

function assertSameOrigin(url: string, base: string, connId: string): void {
  const origin = originOf(url);
  const own = originOf(base);
  if (origin !== own) {
    throw new SluiceError(
      "forbidden",
      `connection '${connId}' sends its credentials only to ${own}; ${origin} is another origin (use url without conn_id)`,
    );
  }
}

/**
 * The target's headers for a request to `url`: all of them on the target's origin, none that may carry a credential
 * elsewhere.
 */
export function headersFor(target: HttpTarget, url: string): Record<string, string> {
  return originOf(url) === originOf(target.url) ? target.headers : headersForAnotherOrigin(target.headers);
}

/** Renders every string inside a JSON value (request bodies). */
export async function renderJson(ctx: NodeContext, value: unknown): Promise<unknown> {
  if (typeof value === "string") return ctx.render(value);
  if (Array.isArray(value)) return Promise.all(value.map((v) => renderJson(ctx, v)));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) ownProperty(out, k, await renderJson(ctx, v));
    return out;
  }
  return value;
}

/** Aborted when the run is cancelled or the node's timeout passes. */
export function nodeRequestSignal(ctx: NodeContext): AbortSignal {
  return AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.timeoutMs)]);
}

/** Sends one request through the node's guarded client; a non-2xx answer fails the node with its status. */
export async function sendChecked(
  ctx: NodeContext,
  target: HttpTarget,
  body: string | undefined,
  signal: AbortSignal,
): Promise<HttpResponse> {
  const headers = { ...target.headers };
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
    headers["content-type"] = "application/json";
  }
  const res = await ctx.http.request({ method: target.method, url: target.url, headers, body, signal });
  if (res.status < 200 || res.status > 299) {
    const snippet = ctx.excerpt(res.text, 200);
    const message = `${target.method} ${describeUrl(res.url)} returned HTTP ${res.status}${snippet ? `: ${snippet}` : ""}`;
    ctx.log("error", message);
    throw new SluiceError("unprocessable", message);
  }
  return res;
}

/** Parses a JSON response body, failing the node with a clear message. */
export function parseJsonBody(res: HttpResponse): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    throw new SluiceError("unprocessable", `response from ${describeUrl(res.url)} is not valid JSON`);
  }
}

/** The value at a dot path (`data.items`, `results.0.rows`); the whole value for an empty path. */
export function valueAtPath(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  let cur = value;
  for (const key of path.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}
