import { useState, type FormEvent } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { ErrorBox } from "../components/ErrorBox";
import { isApiStatus, queryClient, useOp, useOpMutation } from "../lib/api";
import { AuthCard, submitStyle } from "./auth/AuthCard";
import { safeNext } from "./auth/safeNext";

/** Sign in (POST /auth/login sets the svc_session cookie), then go where the visitor was headed (`?next=`). */
export default function LoginView() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get("next"));
  const setup = useOp("getSetup", undefined, { staleTime: 0 });
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const login = useOpMutation("login");

  if (setup.data?.needs_setup) return <Navigate to="/setup" replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate(
      { body: { username, password } },
      {
        onSuccess: async () => {
          // whatever was cached belonged to no one (or to the previous user): the session gate reads getMe afresh
          queryClient.clear();
          await navigate(next, { replace: true });
        },
        onError: () => setPassword(""),
      },
    );
  };

  return (
    <AuthCard title="Sign in">
      <form className="stack" onSubmit={submit} aria-label="Sign in">
        <label>
          Username
          <input
            autoComplete="username"
            required
            autoFocus
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorBox error={login.error} />
        {isApiStatus(login.error, 429) && (
          <p className="muted" style={{ margin: 0, fontSize: 13 }}>
            Too many failed attempts lock the account for 15 minutes. An administrator can unlock it now by resetting
            its password.
          </p>
        )}
        <button
          type="submit"
          className="primary"
          style={submitStyle}
          disabled={login.isPending || username === "" || password === ""}
        >
          {login.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </AuthCard>
  );
}
