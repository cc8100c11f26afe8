import type Router from "@koa/router";
import { PaginationQuerySchema, type Sluice } from "@sluice/core";
import { body, parseQuery, pathParam, send } from "../http.js";

export function registerVariableRoutes(router: Router, sluice: Sluice): void {
  const variables = sluice.variables;
  router.get("/variables", async (ctx) => send(ctx, 200, await variables.list(parseQuery(ctx, PaginationQuerySchema))));
  router.post("/variables", async (ctx) => {
    const { created, variable } = await variables.upsert(body(ctx));
    send(ctx, created ? 201 : 200, variable);
  });
  router.get("/variables/:key", async (ctx) => send(ctx, 200, await variables.get(pathParam(ctx, "key"))));
  router.put("/variables/:key", async (ctx) => send(ctx, 200, await variables.update(pathParam(ctx, "key"), body(ctx))));
  router.delete("/variables/:key", async (ctx) => {
    await variables.delete(pathParam(ctx, "key"));
    send(ctx, 204);
  });
  router.get("/variables/:key/used-by", async (ctx) => send(ctx, 200, await variables.usedBy(pathParam(ctx, "key"))));
}
