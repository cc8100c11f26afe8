import cors from "@koa/cors";
import type { Middleware } from "koa";
import helmet from "koa-helmet";

/**
 * Security headers suited to a JSON API on every response: nothing may be framed, embedded or run from a
 * response (CSP `default-src 'none'`), no MIME sniffing, no referrer, HSTS.
 */
export function securityHeaders(corsEnabled: boolean): Middleware {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginResourcePolicy: { policy: corsEnabled ? "cross-origin" : "same-origin" },
    referrerPolicy: { policy: "no-referrer" },
    frameguard: { action: "deny" },
  });
}

/**
 * CORS, off unless origins are configured (`--cors-origin`, comma-separated). Listed origins may send
 * credentials (the session cookie); `*` allows any origin without credentials.
 */
export function corsPolicy(origins: readonly string[]): Middleware | null {
  if (origins.length === 0) return null;
  const anyOrigin = origins.includes("*");
  const allowed = new Set(origins.map((o) => o.replace(/\/+$/, "")));
  return cors({
    origin: (ctx) => {
      if (anyOrigin) return "*";
      const origin = ctx.get("Origin");
      return allowed.has(origin) ? origin : "";
    },
    credentials: !anyOrigin,
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type", "X-API-Key", "X-Webhook-Token", "Idempotency-Key"],
    exposeHeaders: ["Retry-After", "Content-Disposition"],
    maxAge: 600,
  });
}

/** The CORS origins allowed to send the session cookie (none when `*` is configured): trusted by the CSRF check. */
export function credentialedOrigins(origins: readonly string[] = []): string[] {
  return origins.includes("*") ? [] : origins.map((o) => o.replace(/\/+$/, ""));
}
