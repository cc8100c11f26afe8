import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { clearSessionCookie, setSessionCookie } from "../auth/session-cookie.js";
import { body, principal, send } from "../http.js";

export function registerAuthRoutes(router: Router, sluice: Sluice): void {
  const auth = sluice.auth;

  router.post("/auth/login", async (ctx) => {
    const login = await auth.login(body(ctx));
    setSessionCookie(ctx, login.token);
    send(ctx, 200, login);
  });
  router.post("/auth/logout", (ctx) => {
    clearSessionCookie(ctx);
    send(ctx, 204);
  });
  router.get("/auth/setup", async (ctx) => send(ctx, 200, await auth.setupStatus()));
  router.get("/auth/me", (ctx) => send(ctx, 200, auth.me(principal(ctx))));
  router.get("/auth/users", async (ctx) => send(ctx, 200, await auth.listUsers()));
  router.post("/auth/users", async (ctx) => send(ctx, 201, await auth.createUser(principal(ctx), body(ctx))));
  router.post("/auth/change-password", async (ctx) => {
    const login = await auth.changePassword(principal(ctx), body(ctx));
    setSessionCookie(ctx, login.token);
    send(ctx, 200, login);
  });
  router.post("/auth/admin-reset-password", async (ctx) => send(ctx, 200, await auth.adminResetPassword(principal(ctx), body(ctx))));
}
