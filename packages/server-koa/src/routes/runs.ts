import type { CalendarQuery, DlqQuery, LogsQuery, RunsListQuery, Sluice } from "@sluice/core";
import { abandonedSignal } from "../abandoned.js";
import type { OperationHandler, RoutedOperationId } from "../operations.js";

type Ids = Extract<
  RoutedOperationId,
  | "triggerRun"
  | "dryRun"
  | "backfill"
  | "listRuns"
  | "listDlq"
  | "resolveDlq"
  | "calendar"
  | "getRun"
  | "cancelRun"
  | "resumeRun"
  | "runLogs"
  | "exportRunLogs"
  | "nodePreview"
  | "nodeProfile"
  | "webhook"
>;

const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** SPEC part 4 "Running pipelines and runs", the DLQ and the webhook trigger (docs/api.md shapes). */
export function runHandlers(sluice: Sluice): Record<Ids, OperationHandler> {
  const runs = sluice.runs;
  return {
    triggerRun: ({ params, body }) => runs.triggerFromBody(params.id!, body),
    dryRun: ({ params, body, ctx }) => runs.dryRun(params.id!, body, abandonedSignal(ctx)),
    backfill: ({ params, body }) => runs.backfill(params.id!, body),
    listRuns: ({ params, query }) => runs.listForPipeline(params.id!, query as RunsListQuery),
    listDlq: ({ params, query }) => runs.dlqList(params.id!, query as DlqQuery),
    resolveDlq: ({ params }) => runs.dlqResolve(params.id!, params.dlqId!),
    calendar: ({ query }) => {
      const { days, pipeline_id } = query as CalendarQuery;
      return runs.calendar(days, pipeline_id);
    },
    getRun: ({ params }) => runs.get(params.run_id!),
    cancelRun: ({ params }) => runs.cancel(params.run_id!),
    resumeRun: ({ params }) => runs.resume(params.run_id!),
    runLogs: ({ params, query }) => runs.logs(params.run_id!, query as LogsQuery),
    exportRunLogs: async ({ params, ctx }) => {
      const id = params.run_id!;
      const text = await runs.exportLogs(id);
      ctx.type = "text/plain; charset=utf-8";
      ctx.set("Content-Disposition", `attachment; filename="run-${id.replace(/[^A-Za-z0-9_-]/g, "_")}-logs.txt"`);
      return text;
    },
    nodePreview: ({ params }) => runs.preview(params.run_id!, params.node_id!),
    nodeProfile: ({ params }) => runs.profile(params.run_id!, params.node_id!),
    // authenticated by the pipeline's own token (query `token` or X-Webhook-Token), not by the API's credentials
    webhook: ({ params, body, ctx }) => {
      const queryToken = ctx.query.token;
      return sluice.webhooks.trigger(params.id!, {
        token: (Array.isArray(queryToken) ? queryToken[0] : queryToken) ?? headerValue(ctx.headers["x-webhook-token"]),
        body,
        idempotencyKey: headerValue(ctx.headers["idempotency-key"]),
      });
    },
  };
}
