import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { pathParam, send } from "../http.js";

export function registerInsightRoutes(router: Router, sluice: Sluice): void {
  router.get("/lineage", async (ctx) => send(ctx, 200, await sluice.insights.lineage()));
  router.get("/pipelines/:id/impact", async (ctx) => send(ctx, 200, await sluice.insights.impact(pathParam(ctx, "id"))));
}
