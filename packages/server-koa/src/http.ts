import { hideSecretsFrom, parseInput, type Principal } from "@sluice/core";
import type { Context } from "koa";
import type { z } from "zod";

/** Path parameter by name (the router guarantees presence). */
export function pathParam(ctx: Context, name: string): string {
  const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
  return params[name] ?? "";
}

export function parseQuery<S extends z.ZodType>(ctx: Context, schema: S): z.infer<S> {
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(ctx.query)) {
    // repeated keys: the last one wins
    query[key] = Array.isArray(value) ? (value.at(-1) ?? "") : (value ?? "");
  }
  return parseInput(schema, query, "query");
}

/** The parsed JSON body, or undefined when the request had none. */
export function body(ctx: Context): unknown {
  return (ctx.request as { body?: unknown }).body;
}

/** Every response body leaves through here, shown as the caller may see it (viewers get no pipeline secret). */
export function send(ctx: Context, status: number, payload?: unknown): void {
  ctx.status = status;
  if (payload !== undefined) ctx.body = hideSecretsFrom((ctx.state as { principal?: Principal }).principal, payload);
}

/** The caller, as the authorize middleware established it. */
export function principal(ctx: Context): Principal {
  const found = (ctx.state as { principal?: Principal }).principal;
  if (!found) throw new Error("no principal on a routed request; is the authorize middleware installed?");
  return found;
}
