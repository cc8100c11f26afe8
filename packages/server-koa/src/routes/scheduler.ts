import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { pathParam, send } from "../http.js";

export function registerSchedulerRoutes(router: Router, sluice: Sluice): void {
  router.get("/scheduler/status", async (ctx) => send(ctx, 200, await sluice.scheduler.status()));
  router.get("/pipelines/:id/deps", async (ctx) => send(ctx, 200, await sluice.scheduler.dependencies(pathParam(ctx, "id"))));
}
