import Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import Koa from "koa";
import { authorizeRoutes, type MountedRouter } from "./middleware/authorize.js";
import { errorHandler } from "./middleware/error-handler.js";
import { DEFAULT_BODY_LIMITS, jsonBody, type BodyLimits } from "./middleware/json-body.js";
import { requestMetrics } from "./middleware/request-metrics.js";
import { corsPolicy, credentialedOrigins, securityHeaders } from "./middleware/security.js";
import { registerApiRoutes } from "./routes/index.js";
import { registerMetricsRoute } from "./routes/metrics.js";
import { send } from "./http.js";
import { buildOpenApi } from "./openapi/build-openapi.js";

export interface AppOptions {
  /** Path prefix of the API (default `/api`). */
  readonly prefix?: string;
  readonly bodyLimits?: BodyLimits;
  /** Trust `X-Forwarded-*` headers from a reverse proxy (also decides the session cookie's `Secure`). */
  readonly proxy?: boolean;
  /** Origins allowed to call the API from a browser (CORS); none by default. `*` allows any, without cookies. */
  readonly corsOrigins?: readonly string[];
}

/** One registered route: method and router pattern, without the router's prefix. */
export interface RegisteredRoute {
  readonly method: string;
  readonly path: string;
  /** The prefix the route is served under (`/api`, or `` for root routes such as `/health`). */
  readonly prefix: string;
}

const MOUNTED = new WeakMap<Koa, readonly MountedRouter[]>();

/** Maps the Sluice service onto HTTP. Holds no business logic: parse → service call → serialize. */
export function createApp(sluice: Sluice, options: AppOptions = {}): Koa {
  const app = new Koa({ proxy: options.proxy ?? false });
  const prefix = options.prefix ?? "/api";
  app.silent = true;
  app.use(requestMetrics(sluice));
  const cors = corsPolicy(options.corsOrigins ?? []);
  app.use(securityHeaders(cors !== null));
  if (cors) app.use(cors);
  app.use(errorHandler(sluice.options.logger));

  const root = new Router();
  root.get("/health", (ctx) => send(ctx, 200, { status: "ok" }));
  registerMetricsRoute(root, sluice);

  const api = apiRouter(sluice, prefix);
  let openapi: Record<string, unknown> | null = null;
  api.get("/openapi.json", (ctx) => send(ctx, 200, (openapi ??= buildOpenApi(registeredRoutes(app)))));
  const routers: MountedRouter[] = [
    { router: root, prefix: "" },
    { router: api, prefix },
  ];
  MOUNTED.set(app, routers);

  // permissions are checked before a body is read, so anonymous callers cannot make the server parse 10 MiB
  app.use(authorizeRoutes(sluice, routers, credentialedOrigins(options.corsOrigins)));
  app.use(jsonBody(options.bodyLimits ?? DEFAULT_BODY_LIMITS));
  app.use(root.routes());
  app.use(api.routes());
  app.use(api.allowedMethods({ throw: true }));
  return app;
}

export function apiRouter(sluice: Sluice, prefix = "/api"): Router {
  const api = new Router({ prefix });
  registerApiRoutes(api, sluice);
  return api;
}

/** Every route an app created by `createApp` serves (HEAD folded into GET), for the permission matrix test. */
export function registeredRoutes(app: Koa): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  for (const { router, prefix } of MOUNTED.get(app) ?? []) {
    for (const layer of router.stack) {
      if (typeof layer.path !== "string") continue;
      const path = prefix && layer.path.startsWith(prefix) ? layer.path.slice(prefix.length) || "/" : layer.path;
      for (const method of layer.methods) {
        if (method !== "HEAD") out.push({ method, path, prefix });
      }
    }
  }
  return out;
}
