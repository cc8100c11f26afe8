import type { User } from "@sluice/client";
import { useState, type FormEvent } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { useOpMutation } from "../../lib/api";
import { NewPasswordFields, passwordsReady } from "../auth/PasswordFields";

/** An admin sets another user's password (POST /auth/admin-reset-password): signs them out and lifts a lockout. */
export function ResetPasswordForm({
  target,
  onDone,
  onCancel,
}: {
  target: User;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const m = useOpMutation("adminResetPassword", ["listUsers"]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!passwordsReady(password, confirm)) return;
    m.mutate({ body: { user_id: target.id, new_password: password } }, { onSuccess: onDone });
  };
  return (
    <form className="stack" onSubmit={submit} aria-label={`Reset the password of ${target.username}`}>
      <p className="muted" style={{ margin: 0 }}>
        Sets a new password for <strong>{target.username}</strong>. Their current sessions end, and a lockout after
        failed sign-ins is lifted. Tell them the new password through a safe channel.
      </p>
      <NewPasswordFields
        label="New password"
        password={password}
        confirm={confirm}
        onPassword={setPassword}
        onConfirm={setConfirm}
      />
      <ErrorBox error={m.error} />
      <div className="actions" style={{ justifyContent: "flex-end" }}>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={m.isPending || !passwordsReady(password, confirm)}>
          {m.isPending ? "Saving…" : "Reset password"}
        </button>
      </div>
    </form>
  );
}
