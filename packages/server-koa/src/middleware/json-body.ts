import { bodyParser } from "@koa/bodyparser";
import type { Middleware } from "koa";

export interface BodyLimits {
  /** Default request body limit in bytes (10 MiB). */
  defaultBytes: number;
  /** Limit for pipeline import (5 MiB). */
  importBytes: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = { defaultBytes: 10 * 1024 * 1024, importBytes: 5 * 1024 * 1024 };

/** JSON bodies only; a malformed body is a 400 and an oversized one a 413 (via the error handler). */
export function jsonBody(limits: BodyLimits = DEFAULT_BODY_LIMITS): Middleware {
  const make = (bytes: number) =>
    bodyParser({ enableTypes: ["json"], jsonLimit: bytes, encoding: "utf-8", jsonStrict: true }) as unknown as Middleware;
  const standard = make(limits.defaultBytes);
  const forImport = make(limits.importBytes);
  return (ctx, next) => (ctx.path.endsWith("/pipelines/import") ? forImport(ctx, next) : standard(ctx, next));
}
