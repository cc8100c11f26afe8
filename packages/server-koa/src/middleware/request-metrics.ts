import type { Sluice } from "@sluice/core";
import type { Middleware } from "koa";

/** Records every request's duration by route pattern (never the raw path, which would explode label cardinality). */
export function requestMetrics(sluice: Sluice): Middleware {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? "unmatched";
      sluice.metrics.observeHttp(ctx.method, String(route), ctx.status, Number(process.hrtime.bigint() - start) / 1e9);
    }
  };
}
