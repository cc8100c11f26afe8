import type { IncomingHttpHeaders } from "node:http";
import type { Credentials } from "@sluice/core";

export const SESSION_COOKIE = "svc_session";

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The `svc_session` value from a Cookie header, if present. */
export function sessionCookieValue(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === "" ? undefined : value;
  }
  return undefined;
}

/**
 * Credentials as a request carries them: `Authorization: Bearer`, `X-API-Key`, the `svc_session` cookie, and
 * (WebSocket upgrades only) `?token=`. An Authorization header with another scheme counts as absent.
 */
export function credentialsFromHeaders(headers: IncomingHttpHeaders, queryToken?: string): Credentials {
  const authorization = single(headers.authorization)?.trim();
  const bearer = authorization?.match(/^Bearer(?:\s+(.*))?$/i);
  const apiKey = single(headers["x-api-key"])?.trim();
  const cookie = sessionCookieValue(single(headers.cookie));
  return {
    ...(bearer ? { bearer: (bearer[1] ?? "").trim() } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(cookie !== undefined ? { cookie } : {}),
    ...(queryToken ? { queryToken } : {}),
  };
}
