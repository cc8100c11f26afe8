import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { body, send } from "../http.js";

export function registerSystemRoutes(router: Router, sluice: Sluice): void {
  router.get("/system/info", async (ctx) => send(ctx, 200, await sluice.system.info()));
  router.post("/system/purge", async (ctx) => send(ctx, 200, await sluice.system.purge(body(ctx))));
  router.get("/health", async (ctx) => send(ctx, 200, { status: "ok" }));
}
