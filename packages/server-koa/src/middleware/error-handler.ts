import { errorCodeForStatus, isDatabaseUnavailable, isSluiceError, type Logger } from "@sluice/core";
import type { Middleware } from "koa";

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  type?: string;
}

const CLIENT_MESSAGES: Record<string, string> = {
  "entity.parse.failed": "malformed JSON body",
  "entity.too.large": "request body too large",
  "encoding.unsupported": "unsupported content encoding",
  "charset.unsupported": "unsupported charset",
  "request.aborted": "request aborted",
};

/** Messages of statuses that Koa's body reading gives without a `type` (inflation's unknown Content-Encoding). */
const MESSAGES_BY_STATUS: Record<number, string> = {
  415: "unsupported Content-Encoding: send the body as is, or gzip, deflate or br",
};

/**
 * The parser's words without the piece of the body V8 quotes in them ("…\"password\":SuperSecre\"… is not valid
 * JSON"): a body may hold a password. Only where it broke is kept.
 */
function malformedJsonMessage(e: SyntaxError): string {
  const position = /at position (\d+)/.exec(e.message)?.[1];
  if (position !== undefined) return `malformed JSON body: invalid at position ${position}`;
  return /end of JSON input/i.test(e.message) ? "malformed JSON body: it ends too soon" : "malformed JSON body";
}

/** The only place that writes `{ "error": …, "code": … }` bodies (STYLE.md); `code` is from ERROR_CODES. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: `route not found: ${ctx.method} ${ctx.path}`, code: "not_found" };
      }
    } catch (e) {
      if (isSluiceError(e)) {
        ctx.status = e.status;
        ctx.body = {
          error: e.message,
          code: e.code,
          ...(e.extra.errors ? { errors: e.extra.errors } : {}),
          ...(e.extra.details !== undefined ? { details: e.extra.details } : {}),
        };
        if (e.extra.retryAfterSeconds !== undefined)
          ctx.set("Retry-After", String(Math.max(1, Math.ceil(e.extra.retryAfterSeconds))));
        if (e.status >= 500) logger.error("request failed", { method: ctx.method, path: ctx.path, error: e.message });
        return;
      }
      const err = (e ?? {}) as HttpLikeError;
      const status = err.status ?? err.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        ctx.status = status;
        const malformed = e instanceof SyntaxError ? malformedJsonMessage(e) : undefined;
        const route = status === 404 ? `route not found: ${ctx.method} ${ctx.path}` : undefined;
        ctx.body = {
          error:
            malformed ??
            route ??
            ((err.type && CLIENT_MESSAGES[err.type]) ||
              MESSAGES_BY_STATUS[status] ||
              (err.expose && err.message) ||
              "bad request"),
          code: errorCodeForStatus(status),
        };
        return;
      }
      if (isDatabaseUnavailable(e)) {
        logger.warn("database unavailable", {
          method: ctx.method,
          path: ctx.path,
          error: e instanceof Error ? e.message : String(e),
        });
        ctx.status = 503;
        ctx.set("Retry-After", "1");
        ctx.body = { error: "the database is unavailable; retry shortly", code: "unavailable" };
        return;
      }
      logger.error("unhandled error", {
        method: ctx.method,
        path: ctx.path,
        error: e instanceof Error ? e.message : String(e),
        stack: e instanceof Error ? e.stack : undefined,
      });
      ctx.status = 500;
      ctx.body = { error: "internal server error; see the server logs", code: "internal" };
    }
  };
}
