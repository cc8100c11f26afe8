import type Router from "@koa/router";
import { crossSiteRefusal, isSelfAuthenticated, isSluiceError, routeAccess, SluiceError, type Principal, type Sluice } from "@sluice/core";
import type { Middleware } from "koa";
import { credentialsFromHeaders } from "../auth/credentials.js";

/** A router and the prefix its layer paths carry (stripped before the permission lookup). */
export interface MountedRouter {
  readonly router: Router;
  readonly prefix: string;
}

export interface MatchedRoute {
  readonly method: string;
  /** Router pattern without the prefix, e.g. `/pipelines/:id`. */
  readonly path: string;
}

function stripPrefix(layerPath: string, prefix: string): string {
  if (prefix && layerPath.startsWith(prefix)) return layerPath.slice(prefix.length) || "/";
  return layerPath;
}

/** The route that will handle this request: the first matching layer of the first router that has one. */
export function matchRoute(routers: readonly MountedRouter[], method: string, requestPath: string): MatchedRoute | null {
  for (const { router, prefix } of routers) {
    const matched = router.match(requestPath, method);
    if (!matched.route) continue;
    const layer = matched.pathAndMethod.find((l) => l.methods.length > 0);
    if (layer && typeof layer.path === "string") return { method, path: stripPrefix(layer.path, prefix) };
  }
  return null;
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Applies the core permission table to every routed request before its body is read: 403 for a state-changing
 * request from another origin that carries only the session cookie (CSRF; `trustedOrigins` are the configured
 * CORS origins), 401 without valid credentials, 403 without the permission, 403 (and a log line) for a route
 * missing from the table. Requests that match no route fall through to the 404/405 handling.
 */
export function authorizeRoutes(sluice: Sluice, routers: readonly MountedRouter[], trustedOrigins: readonly string[] = []): Middleware {
  return async (ctx, next) => {
    const route = matchRoute(routers, ctx.method, ctx.path);
    if (!route) return next();
    const access = routeAccess(route.method, route.path);
    const credentials = credentialsFromHeaders(ctx.headers);
    // the webhook's own token is a credential no other origin has, like an Authorization header
    if (!isSelfAuthenticated(route.method, route.path)) {
      const refusal = crossSiteRefusal({
        changesState: STATE_CHANGING.has(ctx.method),
        credentials,
        origin: ctx.get("Origin") || undefined,
        secFetchSite: ctx.get("Sec-Fetch-Site") || undefined,
        // not ctx.origin: in Koa 3 that is the request's Origin header, i.e. the attacker's
        ownOrigin: `${ctx.protocol}://${ctx.host}`,
        trustedOrigins,
      });
      if (refusal) throw new SluiceError("forbidden", refusal);
    }
    let principal: Principal;
    try {
      principal = await sluice.auth.authorize(access, credentials, `${route.method} ${route.path}`);
    } catch (e) {
      // RFC 9110: a 401 names the scheme that would work
      if (isSluiceError(e) && e.code === "unauthorized") ctx.set("WWW-Authenticate", 'Bearer realm="sluice"');
      throw e;
    }
    ctx.state.principal = principal;
    return next();
  };
}
