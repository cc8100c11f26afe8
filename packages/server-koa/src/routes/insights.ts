import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { pathParam, send } from "../http.js";

export function registerInsightRoutes(router: Router, sluice: Sluice): void {
  router.get("/dashboard", async (ctx) => send(ctx, 200, await sluice.insights.dashboard()));
  router.get("/pipelines/summary", async (ctx) => send(ctx, 200, await sluice.insights.summary()));
  router.get("/search", async (ctx) => send(ctx, 200, await sluice.insights.search(ctx.query)));
  router.get("/lineage", async (ctx) => send(ctx, 200, await sluice.insights.lineage()));
  router.get("/pipelines/:id/impact", async (ctx) => send(ctx, 200, await sluice.insights.impact(pathParam(ctx, "id"))));
}
