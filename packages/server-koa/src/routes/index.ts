import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { registerInsightRoutes } from "./insights.js";
import { registerMetricsRoute } from "./metrics.js";
import { registerAuthRoutes } from "./auth.js";
import { registerPipelineRoutes } from "./pipelines.js";
import { registerRunRoutes } from "./runs.js";
import { registerSchedulerRoutes } from "./scheduler.js";
import { registerConnectionRoutes } from "./connections.js";
import { registerVariableRoutes } from "./variables.js";
import { registerSystemRoutes } from "./system.js";
import { registerWebhookRoutes } from "./webhook.js";

/** Every API route module, in registration order. Static paths before parameterised ones. */
export function registerApiRoutes(router: Router, sluice: Sluice): void {
  registerAuthRoutes(router, sluice);
  registerSystemRoutes(router, sluice);
  registerMetricsRoute(router, sluice);
  registerInsightRoutes(router, sluice);
  registerPipelineRoutes(router, sluice);
  registerConnectionRoutes(router, sluice);
  registerVariableRoutes(router, sluice);
  registerRunRoutes(router, sluice);
  registerSchedulerRoutes(router, sluice);
  registerWebhookRoutes(router, sluice);
}
