import { TOKEN_TTL_SECONDS } from "@sluice/core";
import type { Context } from "koa";
import { SESSION_COOKIE } from "./credentials.js";

/**
 * SPEC part 5.3: HttpOnly, SameSite=Lax, Max-Age 24 h, Secure when served over HTTPS (directly, or per
 * `X-Forwarded-Proto` when the app trusts its proxy). Written by hand because Koa's cookies omit Max-Age.
 */
function cookieHeader(value: string, maxAgeSeconds: number, secure: boolean): string {
  const expires = new Date(maxAgeSeconds > 0 ? Date.now() + maxAgeSeconds * 1000 : 0).toUTCString();
  const attributes = [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    `Max-Age=${maxAgeSeconds}`,
    `Expires=${expires}`,
    "HttpOnly",
    "SameSite=Lax",
  ];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

export function setSessionCookie(ctx: Context, token: string): void {
  ctx.append("Set-Cookie", cookieHeader(token, TOKEN_TTL_SECONDS, ctx.secure));
}

export function clearSessionCookie(ctx: Context): void {
  ctx.append("Set-Cookie", cookieHeader("", 0, ctx.secure));
}
