import type { Sluice } from "@sluice/core";
import { clearSessionCookie, setSessionCookie } from "../auth/session-cookie.js";
import type { OperationHandler, RoutedOperationId } from "../operations.js";

type Ids = Extract<
  RoutedOperationId,
  "login" | "logout" | "getSetup" | "getMe" | "listUsers" | "createUser" | "changePassword" | "adminResetPassword"
>;

export function authHandlers(sluice: Sluice): Record<Ids, OperationHandler> {
  const auth = sluice.auth;
  return {
    login: async ({ body, ctx }) => {
      const login = await auth.login(body);
      setSessionCookie(ctx, login.token);
      return login;
    },
    logout: ({ ctx }) => clearSessionCookie(ctx),
    getSetup: () => auth.setupStatus(),
    getMe: ({ principal }) => auth.me(principal),
    listUsers: () => auth.listUsers(),
    createUser: ({ principal, body }) => auth.createUser(principal, body),
    changePassword: async ({ principal, body, ctx }) => {
      const login = await auth.changePassword(principal, body);
      setSessionCookie(ctx, login.token);
      return login;
    },
    adminResetPassword: ({ principal, body }) => auth.adminResetPassword(principal, body),
  };
}
