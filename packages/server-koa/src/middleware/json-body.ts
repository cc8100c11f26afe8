import { bodyParser } from "@koa/bodyparser";
import type { Middleware } from "koa";

/** Request body limit of an operation without its own (`bodyLimitBytes` in the operation table): 10 MiB. */
export const DEFAULT_BODY_BYTES = 10 * 1024 * 1024;

/** JSON bodies only; a malformed body is a 400 and an oversized one a 413 (via the error handler). */
export function jsonBody(limitBytes: number): Middleware {
  return bodyParser({
    enableTypes: ["json"],
    jsonLimit: limitBytes,
    encoding: "utf-8",
    jsonStrict: true,
  }) as unknown as Middleware;
}
