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
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * JSON bodies only; a malformed body is a 400 and an oversized one a 413 (via the error handler), as is one nested
 * deeper than MAX_BODY_DEPTH.
 */
export function jsonBody(limitBytes: number): Middleware {
  const parse = bodyParser({
    enableTypes: ["json"],
    jsonLimit: limitBytes,
    encoding: "utf-8",
    jsonStrict: true,
  }) as unknown as Middleware;
  return (ctx, next) =>
    parse(ctx, () => {
      if (nestedDeeperThan((ctx.request as { body?: unknown }).body, MAX_BODY_DEPTH))
        throw new SluiceError("bad_request", `the JSON body nests deeper than ${MAX_BODY_DEPTH} levels`);
      return next();
    });
}
