import type { Credentials } from "./principal.js";

/** What the same-origin rule needs to know about one request. */
export interface BrowserRequest {
  /** POST/PUT/PATCH/DELETE, or a WebSocket upgrade (which a page may open to any origin). */
  readonly changesState: boolean;
  readonly credentials: Credentials;
  /** The `Origin` header, if any. */
  readonly origin: string | undefined;
  /** The `Sec-Fetch-Site` header, if any. */
  readonly secFetchSite: string | undefined;
  /** The origin this server answers as (scheme://host[:port], per Host and trusted proxy headers). */
  readonly ownOrigin: string;
  /** Other origins allowed to send the cookie (the configured CORS origins; never `*`). */
  readonly trustedOrigins?: readonly string[];
}

/** `scheme://host[:port]` lowercased, default port dropped; null for `null` or anything unparsable. */
function normalizedOrigin(value: string): string | null {
  try {
    const origin = new URL(value).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

const hostOf = (origin: string) => new URL(origin).hostname;

/** Whether `origin` (normalized) is one of `trustedOrigins`. */
const isTrusted = (origin: string, trustedOrigins: readonly string[] = []) =>
  trustedOrigins.some((o) => normalizedOrigin(o) === origin);

/**
 * Cross-site request forgery: a page on another origin can make a browser send the session cookie, but cannot
 * set an Authorization or X-API-Key header (nor know a `?token=`). So a state-changing request that carries no
 * header credential (only the cookie, or nothing — open mode, login) must come from this origin or a trusted one.
 * Returns why the request is refused, or null when it may proceed. Requests without `Origin` and `Sec-Fetch-Site`
 * (API clients, older tools) pass: browsers send `Origin` on every cross-origin POST and WebSocket upgrade.
 */
export function crossSiteRefusal(request: BrowserRequest): string | null {
  const { bearer, apiKey, cookie, queryToken } = request.credentials;
  // credentials a page on another origin cannot have; `?token=` counts only when no cookie outranks it
  const headerCredential =
    bearer !== undefined || apiKey !== undefined || (queryToken !== undefined && cookie === undefined);
  if (!request.changesState || headerCredential) return null;
  const site = request.secFetchSite?.trim().toLowerCase();
  if (request.origin !== undefined) {
    const own = normalizedOrigin(request.ownOrigin);
    const origin = normalizedOrigin(request.origin.trim());
    if (origin !== null && (origin === own || isTrusted(origin, request.trustedOrigins))) return null;
    // the browser vouches for same-origin and only the scheme differs: a TLS proxy the server was not told of
    // (--trust-proxy); an Origin naming another host is refused, whatever Sec-Fetch-Site says
    if (site === "same-origin" && origin !== null && own !== null && hostOf(origin) === hostOf(own)) return null;
    return `cross-origin request refused: Origin '${request.origin.slice(0, 200)}' is not this server's origin; send an Authorization header from other origins`;
  }
  if (site === "same-origin") return null;
  if (site === "cross-site" || site === "same-site") {
    return `cross-origin request refused (Sec-Fetch-Site: ${site}); send an Authorization header from other origins`;
  }
  return null;
}
