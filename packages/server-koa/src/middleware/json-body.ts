import { bodyParser } from "@koa/bodyparser";
import { isWellFormedText, SluiceError } from "@sluice/core";
import type { Context, Middleware } from "koa";

/** Request body limit of an operation without its own (`bodyLimitBytes` in the operation table): 10 MiB. */
export const DEFAULT_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Deepest nesting of arrays and objects a JSON body may have. A pipeline nests a few levels (nodes, a config, its
 * rules, a request body template); thousands of levels would overflow the stack of every recursive step after the
 * parse (validation, storage, export), each a 500 instead of a 400.
 */
export const MAX_BODY_DEPTH = 100;

/**
 * What makes a parsed body unacceptable, or null: arrays and objects nested deeper than `max` levels, or text (a
 * value or a key) holding a lone surrogate, which JSON's `\ud800` can spell but no database stores as sent (SQLite
 * and PostgreSQL would store U+FFFD instead: the answer would echo one value and a later read return another). Walked
 * with a stack, not by recursion.
 */
function bodyProblem(value: unknown, max: number): string | null {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (typeof item === "string") {
      if (!isWellFormedText(item)) return "the JSON body holds text that is not valid Unicode (a lone surrogate)";
    } else if (item !== null && typeof item === "object") {
      if (depth + 1 > max) return `the JSON body nests deeper than ${max} levels`;
      if (Array.isArray(item)) for (const child of item) stack.push([child, depth + 1]);
      else
        for (const [key, child] of Object.entries(item)) {
          stack.push([key, depth], [child, depth + 1]);
        }
    }
  }
  return null;
}

/**
 * zlib's errors while inflating the body (gzip and deflate: Z_DATA_ERROR, Z_BUF_ERROR, …; brotli: the decoder's own
 * error names, ERR__ERROR_FORMAT_PADDING_1, …): a body not in its Content-Encoding.
 */
const undecodable = (e: unknown) => {
  const code = (e as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("Z_") || code.startsWith("ERR__ERROR_"));
};

/**
 * Content-Types a body is read as JSON under: JSON, any `+json` type, and text (what fetch sends a string body as). A
 * body with no Content-Type is read as JSON too (fetch sends bytes without one). Any other type is refused: its body
 * would otherwise be dropped unread, and the request go on as if it had none.
 */
const JSON_TYPES = ["json", "+json", "text/plain"];

/**
 * JSON bodies only; a malformed body is a 400 and an oversized one a 413 (via the error handler); a body nested
 * deeper than MAX_BODY_DEPTH, holding a lone surrogate, or not in its Content-Encoding, is a 400; so is a body sent
 * as a type that is not JSON or text (a form, XML).
 */
export function jsonBody(limitBytes: number): Middleware {
  const parse = bodyParser({
    enableTypes: ["json"],
    detectJSON: (ctx: Context) => Boolean(ctx.request.is(JSON_TYPES)),
    jsonLimit: limitBytes,
    encoding: "utf-8",
    jsonStrict: true,
  }) as unknown as Middleware;
  return async (ctx, next) => {
    const hasBody = ctx.get("transfer-encoding") !== "" || (ctx.request.length ?? 0) > 0;
    if (hasBody && !ctx.get("content-type")) ctx.req.headers["content-type"] = "application/json";
    else if (hasBody && !ctx.request.is(JSON_TYPES))
      throw new SluiceError(
        "bad_request",
        `the body must be JSON, sent as Content-Type: application/json (it was sent as ${ctx.request.type})`,
      );
    let parsed = false;
    try {
      await parse(ctx, async () => {
        parsed = true;
        const problem = bodyProblem((ctx.request as { body?: unknown }).body, MAX_BODY_DEPTH);
        if (problem) throw new SluiceError("bad_request", problem);
        await next();
      });
    } catch (e) {
      // only the parse's own errors: what the route after it throws passes on unchanged
      if (!parsed && undecodable(e)) throw new SluiceError("bad_request", "the body is not in its Content-Encoding");
      throw e;
    }
  };
}
