import type { IncomingMessage } from "node:http";
import { routeAccess, type Principal, type Sluice } from "@sluice/core";
import { credentialsFromHeaders } from "./credentials.js";

/**
 * The permission check for a WebSocket upgrade (`/ws`, `/api/ws`), which never reaches the Koa router: the same
 * credentials as the API plus `?token=` (browsers cannot set headers on a WebSocket). Throws a SluiceError
 * (401/403) like the HTTP middleware.
 */
export function authorizeUpgrade(sluice: Sluice, request: IncomingMessage): Promise<Principal> {
  const url = new URL(request.url ?? "/", "http://localhost");
  const queryToken = url.searchParams.get("token") ?? undefined;
  return sluice.auth.authorize(routeAccess("GET", "/ws"), credentialsFromHeaders(request.headers, queryToken), "GET /ws");
}
