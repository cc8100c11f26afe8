import Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { OPERATIONS } from "@sluice/core/model";
import Koa from "koa";
import { errorHandler } from "./middleware/error-handler.js";
import { DEFAULT_BODY_BYTES } from "./middleware/json-body.js";
import { requestMetrics } from "./middleware/request-metrics.js";
import { corsPolicy, credentialedOrigins, securityHeaders } from "./middleware/security.js";
import { buildOpenApi } from "./openapi/build-openapi.js";
import { registerOperations, routedOperations, type RoutedOperationId } from "./operations.js";
import { operationHandlers } from "./routes/index.js";
import { resolveUiRoot, webUi, type UiOption } from "./web-ui.js";

export interface AppOptions {
  /** Path prefix of the API (default `/api`). */
  readonly prefix?: string;
  /** Request body limit of operations without their own (default 10 MiB; pipeline import: 5 MiB). */
  readonly maxBodyBytes?: number;
  /** Trust `X-Forwarded-*` headers from a reverse proxy (also decides the session cookie's `Secure`). */
  readonly proxy?: boolean;
  /** Origins allowed to call the API from a browser (CORS); none by default. `*` allows any, without cookies. */
  readonly corsOrigins?: readonly string[];
  /**
   * Host names besides IP addresses, `localhost` and dotless names by which the server may be reached while it has
   * no users (open mode); other names are refused then, against DNS rebinding (docs/security.md).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Serve the web UI at `/` (the API stays under the prefix): `true` serves the built `@sluice/web`, `{root}` a
   * directory of your own build. Off by default for embedders; `sluice serve` turns it on unless `--no-ui`.
   */
  readonly ui?: UiOption;
}

/** One registered route: method, router pattern without the router's prefix, and the operation it serves. */
export interface RegisteredRoute {
  readonly method: string;
  readonly path: string;
  /** The prefix the route is served under (`/api`, or `` for root routes such as `/health`). */
  readonly prefix: string;
  readonly operation: RoutedOperationId;
}

const ROUTERS = new WeakMap<Koa, readonly { router: Router; prefix: string }[]>();

/** A method no route has (TRACE, PROPFIND, …): an unknown route, 404 (the error handler names it). */
const unknownMethod = () => Object.assign(new Error("route not found"), { status: 404, expose: true });

/**
 * Maps the Sluice service onto HTTP. Every route comes from the operation table (`@sluice/core/model`) with its
 * permission attached; this adapter holds no business logic: parse → service call → serialize.
 */
export function createApp(sluice: Sluice, options: AppOptions = {}): Koa {
  const app = new Koa({ proxy: options.proxy ?? false });
  const prefix = options.prefix ?? "/api";
  app.silent = true;
  app.use(requestMetrics(sluice));
  const cors = corsPolicy(options.corsOrigins ?? []);
  app.use(securityHeaders(cors !== null));
  if (cors) app.use(cors);
  app.use(errorHandler(sluice.options.logger));

  let openapi: Record<string, unknown> | null = null;
  const handlers = operationHandlers(sluice, () => (openapi ??= buildOpenApi(prefix)));
  const register = {
    sluice,
    trustedOrigins: credentialedOrigins(options.corsOrigins),
    allowedHosts: options.allowedHosts ?? [],
    defaultBodyBytes: options.maxBodyBytes ?? DEFAULT_BODY_BYTES,
  };
  const { api: apiIds, root: rootIds } = routedOperations();
  const root = new Router();
  registerOperations(root, rootIds, handlers, register);
  const api = new Router({ prefix });
  registerOperations(api, apiIds, handlers, register);
  ROUTERS.set(app, [
    { router: root, prefix: "" },
    { router: api, prefix },
  ]);

  app.use(root.routes());
  app.use(api.routes());
  // a method no route has (TRACE, PROPFIND, …) is an unknown route, not the router's 501 (logged as unhandled)
  app.use(api.allowedMethods({ throw: true, notImplemented: unknownMethod }));
  const uiRoot = resolveUiRoot(options.ui);
  if (uiRoot !== null) {
    const rootPaths = rootIds.map((id) => OPERATIONS[id].path);
    app.use(webUi(uiRoot, prefix, rootPaths));
  }
  return app;
}

/** Every route an app created by `createApp` serves (HEAD folded into GET), with the operation behind it. */
export function registeredRoutes(app: Koa): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  for (const { router, prefix } of ROUTERS.get(app) ?? []) {
    for (const layer of router.stack) {
      if (typeof layer.path !== "string") continue;
      const path = prefix && layer.path.startsWith(prefix) ? layer.path.slice(prefix.length) || "/" : layer.path;
      for (const method of layer.methods) {
        if (method !== "HEAD") out.push({ method, path, prefix, operation: layer.name as RoutedOperationId });
      }
    }
  }
  return out;
}
