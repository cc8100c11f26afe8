import type { Role } from "@sluice/client";
import { useId, useState, type FormEvent } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { useOpMutation } from "../../lib/api";
import { useSession } from "../../lib/session";
import { Field } from "../auth/Field";
import { NewPasswordFields, passwordsReady } from "../auth/PasswordFields";
import { assignableRoles, ROLE_HELP } from "./roles";

/** A new user (POST /auth/users): username, initial password, role. */
export function CreateUserForm({ onDone }: { onDone: (username: string) => void }) {
  const { user } = useSession();
  const ids = useId();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const m = useOpMutation("createUser", ["listUsers"]);
  const ready = username.trim() !== "" && passwordsReady(password, confirm);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    m.mutate({ body: { username, password, role } }, { onSuccess: (u) => onDone(u.username) });
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="New user">
      <label>
        Username
        <input autoComplete="off" required autoFocus value={username} onChange={(e) => setUsername(e.target.value)} />
      </label>
      <NewPasswordFields
        label="Initial password"
        password={password}
        confirm={confirm}
        onPassword={setPassword}
        onConfirm={setConfirm}
      />
      <Field id={`${ids}-role`} hint={ROLE_HELP[role]}>
        <label>
          Role
          <select aria-describedby={`${ids}-role`} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {assignableRoles(user?.role).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
      </Field>
      <ErrorBox error={m.error} />
      <div className="actions" style={{ justifyContent: "flex-end" }}>
        <button type="submit" className="primary" disabled={m.isPending || !ready}>
          {m.isPending ? "Creating…" : "Create user"}
        </button>
      </div>
    </form>
  );
}
