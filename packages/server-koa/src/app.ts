import Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import Koa from "koa";
import { errorHandler } from "./middleware/error-handler.js";
import { DEFAULT_BODY_LIMITS, jsonBody, type BodyLimits } from "./middleware/json-body.js";
import { requestMetrics } from "./middleware/request-metrics.js";
import { registerApiRoutes } from "./routes/index.js";
import { registerMetricsRoute } from "./routes/metrics.js";
import { send } from "./http.js";

export interface AppOptions {
  /** Path prefix of the API (default `/api`). */
  readonly prefix?: string;
  readonly bodyLimits?: BodyLimits;
  /** Trust `X-Forwarded-*` headers from a reverse proxy. */
  readonly proxy?: boolean;
}

/** Maps the Sluice service onto HTTP. Holds no business logic: parse → service call → serialize. */
export function createApp(sluice: Sluice, options: AppOptions = {}): Koa {
  const app = new Koa({ proxy: options.proxy ?? false });
  const prefix = options.prefix ?? "/api";
  app.silent = true;
  app.use(requestMetrics(sluice));
  app.use(errorHandler(sluice.options.logger));
  app.use(jsonBody(options.bodyLimits ?? DEFAULT_BODY_LIMITS));

  const root = new Router();
  root.get("/health", (ctx) => send(ctx, 200, { status: "ok" }));
  registerMetricsRoute(root, sluice);
  app.use(root.routes());

  const api = apiRouter(sluice, prefix);
  app.use(api.routes());
  app.use(api.allowedMethods({ throw: true }));
  return app;
}

export function apiRouter(sluice: Sluice, prefix = "/api"): Router {
  const api = new Router({ prefix });
  registerApiRoutes(api, sluice);
  return api;
}
