import { bodyParser } from "@koa/bodyparser";
import { SluiceError } from "@sluice/core";
import type { Middleware } from "koa";

/** Request body limit of an operation without its own (`bodyLimitBytes` in the operation table): 10 MiB. */
export const DEFAULT_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Deepest nesting of arrays and objects a JSON body may have. A pipeline nests a few levels (nodes, a config, its
 * rules, a request body template); thousands of levels would overflow the stack of every recursive step after the
 * parse (validation, storage, export), each a 500 instead of a 400.
 */
export const MAX_BODY_DEPTH = 100;

/** Whether `value` nests arrays and objects deeper than `max` levels: walked with a stack, not by recursion. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== "object") return false;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length) {
    const [container, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(container) ? container : Object.values(container))
      if (child !== null && typeof child === "object") stack.push([child as object, depth + 1]);
  }
  return false;
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
 * JSON bodies only; a malformed body is a 400 and an oversized one a 413 (via the error handler); a body nested
 * deeper than MAX_BODY_DEPTH, or not in its Content-Encoding, is a 400.
 */
export function jsonBody(limitBytes: number): Middleware {
  const parse = bodyParser({
    enableTypes: ["json"],
    jsonLimit: limitBytes,
    encoding: "utf-8",
    jsonStrict: true,
  }) as unknown as Middleware;
  return async (ctx, next) => {
    let parsed = false;
    try {
      await parse(ctx, async () => {
        parsed = true;
        if (nestedDeeperThan((ctx.request as { body?: unknown }).body, MAX_BODY_DEPTH))
          throw new SluiceError("bad_request", `the JSON body nests deeper than ${MAX_BODY_DEPTH} levels`);
        await next();
      });
    } catch (e) {
      // only the parse's own errors: what the route after it throws passes on unchanged
      if (!parsed && undecodable(e)) throw new SluiceError("bad_request", "the body is not in its Content-Encoding");
      throw e;
    }
  };
}
