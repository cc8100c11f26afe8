import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Navigate, useNavigate } from "react-router";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { client, queryClient, useOp } from "../lib/api";
import { AuthCard, submitStyle } from "./auth/AuthCard";
import { NewPasswordFields, passwordsReady } from "./auth/PasswordFields";

/**
 * First-run setup (open mode): creates the first user, which the server always makes an `admin` (POST /auth/users
 * while no user exists), then signs in with it (POST /auth/login sets the session cookie) and opens the dashboard.
 */
export default function SetupView() {
  const navigate = useNavigate();
  const setup = useOp("getSetup", undefined, { staleTime: 0 });
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const create = useMutation({
    mutationFn: async () => {
      await client.call("createUser", { body: { username, password, role: "admin" } });
      // the account exists from here on: should signing in fail, the login page is where to retry
      return client.call("login", { body: { username, password } }).then(
        () => "/",
        () => "/login",
      );
    },
    onSuccess: async (to) => {
      // the session gate must read setup and the new user afresh
      queryClient.clear();
      await navigate(to, { replace: true });
    },
  });

  if (setup.isPending) return <Loading label="Connecting" />;
  if (setup.data && !setup.data.needs_setup && !create.isPending && !create.isSuccess) {
    return <Navigate to="/login" replace />;
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (username.trim() === "" || !passwordsReady(password, confirm)) return;
    create.mutate();
  };

  return (
    <AuthCard
      title="Set up Sluice"
      intro="No users exist yet. Create the first account: it becomes the administrator, and signing in is required from then on."
    >
      <ErrorBox error={setup.error} />
      <form className="stack" onSubmit={submit} aria-label="Create the first user">
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
        <NewPasswordFields password={password} confirm={confirm} onPassword={setPassword} onConfirm={setConfirm} />
        <ErrorBox error={create.error} />
        <button
          type="submit"
          className="primary"
          style={submitStyle}
          disabled={create.isPending || username.trim() === "" || !passwordsReady(password, confirm)}
        >
          {create.isPending ? "Creating…" : "Create account"}
        </button>
      </form>
    </AuthCard>
  );
}
