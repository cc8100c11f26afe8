import { operationAllowed, type OperationId, type User } from "@sluice/client";
import { createContext, useContext, type ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { isApiStatus, useOp } from "./api";
import { Loading } from "../components/Loading";
import { ErrorBox } from "../components/ErrorBox";

export interface Session {
  /** The logged-in user; null in open mode (no users yet: every operation is reachable without credentials). */
  user: User | null;
  /** Whether the session may call an operation (hides controls; the server checks every request regardless). */
  can(id: OperationId): boolean;
}

const SessionContext = createContext<Session>({ user: null, can: () => false });

export function useSession(): Session {
  return useContext(SessionContext);
}

/** Shows its children only to a session that may call `op`. */
export function Can({ op, children }: { op: OperationId; children: ReactNode }) {
  return useSession().can(op) ? <>{children}</> : null;
}

/**
 * Decides where a visitor belongs: no users yet → /setup; not logged in → /login (remembering where they were going);
 * otherwise the app, with the session in context.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const location = useLocation();
  const setup = useOp("getSetup");
  const needsSetup = setup.data?.needs_setup === true;
  // asked together with the setup state (one round trip on a cold load, not two in a row)
  const me = useOp("getMe", undefined, { retry: false });
  if (setup.isPending) return <Loading label="Connecting" />;
  if (setup.error) return <ErrorBox error={setup.error} />;
  if (needsSetup) return <Navigate to="/setup" replace />;
  if (me.isPending) return <Loading label="Signing in" />;
  if (me.error) {
    if (isApiStatus(me.error, 401)) {
      const next = location.pathname + location.search;
      return <Navigate to={`/login${next === "/" ? "" : `?next=${encodeURIComponent(next)}`}`} replace />;
    }
    return <ErrorBox error={me.error} />;
  }
  const user = me.data ?? null;
  const session: Session = { user, can: (id) => operationAllowed(user?.role ?? null, id) };
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
