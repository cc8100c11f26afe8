import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import {
  crossSiteRefusal,
  openModeHostRefusal,
  OPERATIONS,
  SluiceError,
  type Principal,
  type Sluice,
} from "@sluice/core";
import { credentialsFromHeaders } from "./credentials.js";

export interface UpgradeOriginOptions {
  /** Trust `X-Forwarded-Proto`/`X-Forwarded-Host`, as the Koa app does with `proxy: true`. */
  readonly proxy?: boolean;
  /** Other origins allowed to use the session cookie (the configured CORS origins). */
  readonly trustedOrigins?: readonly string[];
  /** Host names allowed in open mode besides IP addresses, localhost and dotless names (`openModeHostRefusal`). */
  readonly allowedHosts?: readonly string[];
}

const first = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value[0] : value)?.split(",")[0]?.trim() || undefined;

/** The origin the server answers as for this request, worked out like Koa's `ctx.origin`. */
export function upgradeOwnOrigin(request: IncomingMessage, proxy = false): string {
  const encrypted = (request.socket as Partial<TLSSocket> | undefined)?.encrypted === true;
  const protocol = encrypted ? "https" : (proxy && first(request.headers["x-forwarded-proto"])) || "http";
  const host = (proxy && first(request.headers["x-forwarded-host"])) || request.headers.host || "";
  return `${protocol}://${host}`;
}

/**
 * The permission check for a WebSocket upgrade (`/ws`, `/api/ws`), which never reaches the Koa router: the same
 * credentials as the API plus `?token=` (browsers cannot set headers on a WebSocket). A page on any origin may
 * open a WebSocket, so one that relies on the session cookie must come from this origin (or a trusted one).
 * Throws a SluiceError (401/403) like the HTTP middleware.
 */
export async function authorizeUpgrade(
  sluice: Sluice,
  request: IncomingMessage,
  options: UpgradeOriginOptions = {},
): Promise<Principal> {
  const url = new URL(request.url ?? "/", "http://localhost");
  const queryToken = url.searchParams.get("token") ?? undefined;
  const credentials = credentialsFromHeaders(request.headers, queryToken);
  const refusal = crossSiteRefusal({
    changesState: true,
    credentials,
    origin: first(request.headers.origin),
    secFetchSite: first(request.headers["sec-fetch-site"]),
    ownOrigin: upgradeOwnOrigin(request, options.proxy),
    trustedOrigins: options.trustedOrigins ?? [],
  });
  if (refusal) throw new SluiceError("forbidden", refusal);
  const principal = await sluice.auth.authorize(OPERATIONS.events.access, credentials);
  // open mode: the events of every run, to a page that rebound a name of its own to this server
  const hostRefusal = openModeHostRefusal(principal, request.headers.host, options.allowedHosts ?? []);
  if (hostRefusal) throw new SluiceError("forbidden", hostRefusal);
  return principal;
}
