import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";

export function registerMetricsRoute(router: Router, sluice: Sluice): void {
  router.get("/metrics", async (ctx) => {
    const { contentType, body } = await sluice.metrics.render();
    ctx.type = contentType;
    ctx.body = body;
  });
}
