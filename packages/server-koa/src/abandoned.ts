import type { Context } from "koa";

/**
 * Aborted when the client goes away before its answer is written (it closed the connection, or a proxy gave up):
 * work done only for that answer, such as a dry run, is stopped instead of running on for nobody.
 */
export function abandonedSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once("close", () => {
    if (!ctx.res.writableFinished) controller.abort(new Error("the client went away"));
  });
  return controller.signal;
}
