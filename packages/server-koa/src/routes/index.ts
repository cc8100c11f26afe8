import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { registerInsightRoutes } from "./insights.js";
import { registerMetricsRoute } from "./metrics.js";
import { registerAuthRoutes } from "./auth.js";
import { registerPipelineRoutes } from "./pipelines.js";
import { registerSystemRoutes } from "./system.js";

/** Every API route module, in registration order. Static paths before parameterised ones. */
export function registerApiRoutes(router: Router, sluice: Sluice): void {
  registerAuthRoutes(router, sluice);
  registerSystemRoutes(router, sluice);
  registerMetricsRoute(router, sluice);
  registerInsightRoutes(router, sluice);
  registerPipelineRoutes(router, sluice);
}
