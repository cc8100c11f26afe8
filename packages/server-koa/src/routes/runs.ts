import type Router from "@koa/router";
import { CalendarQuerySchema, PaginationQuerySchema, type Sluice } from "@sluice/core";
import { body, parseQuery, pathParam, send } from "../http.js";

/** SPEC part 4 "Running pipelines and runs" and the DLQ rows (DESIGN.md §4 shapes). */
export function registerRunRoutes(router: Router, sluice: Sluice): void {
  const runs = sluice.runs;
  const query = (ctx: { query: Record<string, unknown> }) =>
    Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, Array.isArray(v) ? v.at(-1) : v]));

  router.post("/pipelines/:id/run", async (ctx) => send(ctx, 202, await runs.triggerFromBody(pathParam(ctx, "id"), body(ctx))));
  router.post("/pipelines/:id/dry-run", async (ctx) => send(ctx, 200, await runs.dryRun(pathParam(ctx, "id"), body(ctx))));
  router.post("/pipelines/:id/backfill", async (ctx) => send(ctx, 202, await runs.backfill(pathParam(ctx, "id"), body(ctx))));
  router.get("/pipelines/:id/runs", async (ctx) =>
    send(ctx, 200, await runs.listForPipeline(pathParam(ctx, "id"), parseQuery(ctx, PaginationQuerySchema))),
  );
  router.get("/pipelines/:id/dlq", async (ctx) => send(ctx, 200, await runs.dlqList(pathParam(ctx, "id"), query(ctx))));
  router.post("/pipelines/:id/dlq/:dlqId/resolve", async (ctx) =>
    send(ctx, 200, await runs.dlqResolve(pathParam(ctx, "id"), pathParam(ctx, "dlqId"))),
  );

  router.get("/runs/calendar", async (ctx) => send(ctx, 200, await runs.calendar(parseQuery(ctx, CalendarQuerySchema).days)));
  router.get("/runs/:run_id", async (ctx) => send(ctx, 200, await runs.get(pathParam(ctx, "run_id"))));
  router.post("/runs/:run_id/cancel", async (ctx) => send(ctx, 200, await runs.cancel(pathParam(ctx, "run_id"))));
  router.post("/runs/:run_id/resume", async (ctx) => send(ctx, 202, await runs.resume(pathParam(ctx, "run_id"))));
  router.get("/runs/:run_id/logs", async (ctx) => send(ctx, 200, await runs.logs(pathParam(ctx, "run_id"), query(ctx))));
  router.get("/runs/:run_id/logs/export", async (ctx) => {
    const id = pathParam(ctx, "run_id");
    const text = await runs.exportLogs(id);
    ctx.type = "text/plain; charset=utf-8";
    ctx.set("Content-Disposition", `attachment; filename="run-${id.replace(/[^A-Za-z0-9_-]/g, "_")}-logs.txt"`);
    send(ctx, 200, text);
  });
  router.get("/runs/:run_id/nodes/:node_id/preview", async (ctx) =>
    send(ctx, 200, await runs.preview(pathParam(ctx, "run_id"), pathParam(ctx, "node_id"))),
  );
  router.get("/runs/:run_id/nodes/:node_id/profile", async (ctx) =>
    send(ctx, 200, await runs.profile(pathParam(ctx, "run_id"), pathParam(ctx, "node_id"))),
  );
}
