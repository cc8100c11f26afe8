import type Router from "@koa/router";
import { PaginationQuerySchema, RollbackRequestSchema, parseInput, type Sluice } from "@sluice/core";
import { body, parseQuery, pathParam, send } from "../http.js";

export function registerPipelineRoutes(router: Router, sluice: Sluice): void {
  const pipelines = sluice.pipelines;

  router.get("/pipelines", async (ctx) => send(ctx, 200, await pipelines.list(parseQuery(ctx, PaginationQuerySchema))));
  router.post("/pipelines", async (ctx) => send(ctx, 201, await pipelines.create(body(ctx))));
  router.post("/pipelines/import", async (ctx) => send(ctx, 201, await pipelines.import(body(ctx))));
  router.post("/pipelines/bulk", async (ctx) => send(ctx, 200, await pipelines.bulk(body(ctx))));

  router.get("/pipelines/:id", async (ctx) => send(ctx, 200, await pipelines.get(pathParam(ctx, "id"))));
  router.put("/pipelines/:id", async (ctx) => send(ctx, 200, await pipelines.update(pathParam(ctx, "id"), body(ctx))));
  router.patch("/pipelines/:id", async (ctx) => send(ctx, 200, await pipelines.update(pathParam(ctx, "id"), body(ctx))));
  router.delete("/pipelines/:id", async (ctx) => {
    await pipelines.delete(pathParam(ctx, "id"));
    send(ctx, 204);
  });
  router.post("/pipelines/:id/clone", async (ctx) => send(ctx, 201, await pipelines.clone(pathParam(ctx, "id"))));
  router.get("/pipelines/:id/export", async (ctx) => {
    const id = pathParam(ctx, "id");
    const document = await pipelines.export(id);
    ctx.set("Content-Disposition", `attachment; filename="pipeline-${id}.json"`);
    send(ctx, 200, document);
  });
  router.get("/pipelines/:id/validate", async (ctx) => send(ctx, 200, await pipelines.validate(pathParam(ctx, "id"))));
  router.post("/pipelines/:id/validate-nodes", async (ctx) =>
    send(ctx, 200, await pipelines.validateNodes(pathParam(ctx, "id"), body(ctx) ?? {})),
  );
  router.get("/pipelines/:id/versions", async (ctx) => send(ctx, 200, await pipelines.versions(pathParam(ctx, "id"))));
  router.post("/pipelines/:id/rollback", async (ctx) => {
    const { version_id } = parseInput(RollbackRequestSchema, body(ctx));
    send(ctx, 200, await pipelines.rollback(pathParam(ctx, "id"), version_id));
  });
}
