import type Router from "@koa/router";
import {
  crossSiteRefusal,
  isSluiceError,
  openModeHostRefusal,
  OPERATION_IO,
  OPERATIONS,
  parseInput,
  SluiceError,
  type OperationId,
  type Principal,
  type RouteAccess,
  type Sluice,
} from "@sluice/core";
import type { Context, Middleware } from "koa";
import { credentialsFromHeaders } from "./auth/credentials.js";
import { send } from "./http.js";
import { jsonBody } from "./middleware/json-body.js";

/** What a handler gets: the path parameters, the query parsed with the operation's schema, the raw body. */
export interface OperationRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: unknown;
  /** Parsed JSON, undefined without a body; the service validates it with the operation's body schema. */
  readonly body: unknown;
  readonly principal: Principal;
  /** For the few operations that set cookies or headers or answer in text. */
  readonly ctx: Context;
}

export type OperationHandler = (request: OperationRequest) => unknown;

/** HTTP operations served by the Koa router (the WebSocket upgrade is served by `ws.ts`). */
export type RoutedOperationId = {
  [K in OperationId]: (typeof OPERATIONS)[K] extends { websocket: true } ? never : K;
}[OperationId];

/** One handler per routed operation: exhaustive by type, so an operation in the table cannot lack a route. */
export type OperationHandlers = { readonly [K in RoutedOperationId]: OperationHandler };

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The router pattern of a table path: `{name}` → `:name`. */
export const routerPath = (path: string): string => path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");

export interface RegisterOptions {
  readonly sluice: Sluice;
  /** Origins besides the server's own that may send the session cookie (the configured CORS origins). */
  readonly trustedOrigins: readonly string[];
  /** Host names allowed in open mode besides IP addresses, localhost and dotless names (`openModeHostRefusal`). */
  readonly allowedHosts: readonly string[];
  readonly defaultBodyBytes: number;
}

/**
 * The permission check of one operation, attached to its route (docs/security.md): a state-changing request from
 * another origin that carries only the session cookie is 403 (CSRF), then missing or invalid credentials are 401 and
 * a role without the permission 403; in open mode, a request naming the server by a host name a web page could
 * control is 403 (DNS rebinding). Runs before the body is read, so anonymous callers cannot make the server parse
 * 10 MiB.
 */
function authorize(
  sluice: Sluice,
  access: RouteAccess,
  { trustedOrigins, allowedHosts }: Pick<RegisterOptions, "trustedOrigins" | "allowedHosts">,
): Middleware {
  return async (ctx, next) => {
    const credentials = credentialsFromHeaders(ctx.headers);
    // the webhook's own token is a credential no other origin has, like an Authorization header
    if (access !== "webhook") {
      const refusal = crossSiteRefusal({
        changesState: STATE_CHANGING.has(ctx.method),
        credentials,
        origin: ctx.get("Origin") || undefined,
        secFetchSite: ctx.get("Sec-Fetch-Site") || undefined,
        // Koa 3's ctx.origin echoes the Origin header; the server's own origin is protocol + host
        ownOrigin: `${ctx.protocol}://${ctx.host}`,
        trustedOrigins,
      });
      if (refusal) throw new SluiceError("forbidden", refusal);
    }
    try {
      ctx.state.principal = await sluice.auth.authorize(access, credentials);
    } catch (e) {
      // RFC 9110: a 401 names the scheme that would work
      if (isSluiceError(e) && e.code === "unauthorized") ctx.set("WWW-Authenticate", 'Bearer realm="sluice"');
      throw e;
    }
    const hostRefusal = openModeHostRefusal(ctx.state.principal as Principal, ctx.req.headers.host, allowedHosts);
    if (hostRefusal) throw new SluiceError("forbidden", hostRefusal);
    return next();
  };
}

function flatQuery(ctx: Context): Record<string, string> {
  const query: Record<string, string> = {};
  // repeated keys: the last one wins
  for (const [key, value] of Object.entries(ctx.query))
    query[key] = Array.isArray(value) ? (value.at(-1) ?? "") : (value ?? "");
  return query;
}

/** Parses the request for `id` and answers with the handler's result and the operation's success status. */
function handle(id: OperationId, handler: OperationHandler): Middleware {
  const spec = OPERATIONS[id];
  const io = OPERATION_IO[id] as { query?: Parameters<typeof parseInput>[0] };
  return async (ctx) => {
    const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
    const query = io.query ? parseInput(io.query, flatQuery(ctx), "query") : flatQuery(ctx);
    const principal = ctx.state.principal as Principal;
    const result = await handler({ params, query, body: (ctx.request as { body?: unknown }).body, principal, ctx });
    // a handler may set another success status (an upsert that updated answers 200, not 201)
    const status = ctx.status === 404 ? spec.status : ctx.status;
    if (status === 204) send(ctx, 204);
    else send(ctx, status, result);
  };
}

/**
 * Registers the routes of every operation in `ids` on `router`, each with its permission check, its body limit and
 * its handler; nothing about a route is decided anywhere else.
 */
export function registerOperations(
  router: Router,
  ids: readonly RoutedOperationId[],
  handlers: OperationHandlers,
  options: RegisterOptions,
): void {
  for (const id of ids) {
    const spec: (typeof OPERATIONS)[OperationId] = OPERATIONS[id];
    const body = jsonBody("bodyLimitBytes" in spec ? spec.bodyLimitBytes : options.defaultBodyBytes);
    router.register(
      routerPath(spec.path),
      [spec.method],
      [authorize(options.sluice, spec.access, options), body, handle(id, handlers[id])],
      {
        name: id,
      },
    );
  }
}

/** The routed operations served below the API prefix, and those at the server root. */
export function routedOperations(): { api: RoutedOperationId[]; root: RoutedOperationId[] } {
  const api: RoutedOperationId[] = [];
  const root: RoutedOperationId[] = [];
  for (const [id, spec] of Object.entries(OPERATIONS) as [OperationId, (typeof OPERATIONS)[OperationId]][]) {
    if ("websocket" in spec) continue;
    ("root" in spec ? root : api).push(id as RoutedOperationId);
  }
  return { api, root };
}
