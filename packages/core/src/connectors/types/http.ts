import { SluiceError } from "../../errors.js";
import type { Connector, ConnectionFields } from "../connector.js";

/**
 * Base URL of an http connection: `host` when it is a URL (`https://api.example.com/v1`), else scheme + host + port,
 * the scheme being `schema` when that is `http`/`https` (default https).
 */
export function httpBaseUrl(c: ConnectionFields): string {
  const host = c.host.trim();
  if (!host) throw new SluiceError("invalid", `connection '${c.conn_id}' has no host`);
  if (/^https?:\/\//i.test(host)) return host.replace(/\/+$/, "");
  const scheme = c.schema === "http" || c.schema === "https" ? c.schema : "https";
  return `${scheme}://${host}${c.port ? `:${c.port}` : ""}`;
}

/**
 * Auth and headers of an http connection: `extra.token` → bearer; else login/password → basic; else a password alone →
 * bearer; plus `extra.headers`.
 */
export function httpAuthHeaders(c: ConnectionFields): Record<string, string> {
  const headers: Record<string, string> = {};
  const extraHeaders = c.extra.headers;
  if (extraHeaders && typeof extraHeaders === "object") {
    for (const [k, v] of Object.entries(extraHeaders as Record<string, unknown>))
      if (v !== null && v !== undefined) headers[k.toLowerCase()] = String(v);
  }
  const token = typeof c.extra.token === "string" && c.extra.token ? c.extra.token : undefined;
  if (token) headers.authorization = `Bearer ${token}`;
  else if (c.login) headers.authorization = `Basic ${Buffer.from(`${c.login}:${c.password}`).toString("base64")}`;
  else if (c.password) headers.authorization = `Bearer ${c.password}`;
  return headers;
}

export const httpConnector: Connector = {
  type: "http",
  label: "HTTP / REST API",
  fields: ["host", "port", "login", "password", "extra"],
  driver: "undici",
  uri: httpBaseUrl,
  destinationFields: ["schema"],
  async test(c, signal, network) {
    const url = httpBaseUrl(c);
    const res = await network.http.request({ method: "GET", url, headers: httpAuthHeaders(c), signal });
    if (res.status >= 400) throw new Error(`HTTP ${res.status} from ${url}`);
    return `HTTP ${res.status} from ${new URL(url).origin}`;
  },
};
