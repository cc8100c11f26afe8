import type Router from "@koa/router";
import { PaginationQuerySchema, type Sluice } from "@sluice/core";
import { body, parseQuery, pathParam, send } from "../http.js";

export function registerConnectionRoutes(router: Router, sluice: Sluice): void {
  const connections = sluice.connections;
  router.get("/connection-types", (ctx) => send(ctx, 200, connections.types()));
  router.get("/connections", async (ctx) => send(ctx, 200, await connections.list(parseQuery(ctx, PaginationQuerySchema))));
  router.post("/connections", async (ctx) => send(ctx, 201, await connections.create(body(ctx))));
  router.get("/connections/:conn_id", async (ctx) => send(ctx, 200, await connections.get(pathParam(ctx, "conn_id"))));
  router.put("/connections/:conn_id", async (ctx) => send(ctx, 200, await connections.update(pathParam(ctx, "conn_id"), body(ctx) ?? {})));
  router.delete("/connections/:conn_id", async (ctx) => {
    await connections.delete(pathParam(ctx, "conn_id"));
    send(ctx, 204);
  });
  router.post("/connections/:conn_id/test", async (ctx) => send(ctx, 200, await connections.test(pathParam(ctx, "conn_id"))));
  router.get("/connections/:conn_id/used-by", async (ctx) => send(ctx, 200, await connections.usedBy(pathParam(ctx, "conn_id"))));
}
