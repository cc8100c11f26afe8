import { useState, type FormEvent } from "react";
import { Dialog } from "../../components/Dialog";
import { ErrorBox } from "../../components/ErrorBox";
import { useOpMutation } from "../../lib/api";
import { NewPasswordFields, passwordsReady } from "./PasswordFields";

/**
 * "Change my password" for the signed-in user (POST /auth/change-password). The server answers with a fresh session
 * cookie (tokens issued before the change are refused from then on), so the user stays signed in.
 */
export function ChangePasswordForm({ onDone }: { onDone?: () => void }) {
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [changed, setChanged] = useState(false);
  const m = useOpMutation("changePassword");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!passwordsReady(password, confirm)) return;
    setChanged(false);
    m.mutate(
      { body: { current_password: current, new_password: password } },
      {
        onSuccess: () => {
          setCurrent("");
          setPassword("");
          setConfirm("");
          setChanged(true);
          onDone?.();
        },
      },
    );
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Change my password">
      <label>
        Current password
        <input
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
        />
      </label>
      <NewPasswordFields
        label="New password"
        password={password}
        confirm={confirm}
        onPassword={setPassword}
        onConfirm={setConfirm}
      />
      <ErrorBox error={m.error} />
      {changed && (
        <div className="ok-box" role="status">
          Password changed. Other sessions of this account are signed out.
        </div>
      )}
      <div className="actions">
        <button
          type="submit"
          className="primary"
          disabled={m.isPending || current === "" || !passwordsReady(password, confirm)}
        >
          {m.isPending ? "Changing…" : "Change password"}
        </button>
      </div>
    </form>
  );
}

/** The same form in a dialog, for the sidebar ("Change password" next to "Sign out"). */
export function ChangePasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} title="Change my password" onClose={onClose}>
      <ChangePasswordForm />
    </Dialog>
  );
}

export default ChangePasswordDialog;

/** A "Change password" button that opens the dialog: drop it in the sidebar as is. */
export function ChangePasswordButton({ className = "ghost" }: { className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={className} onClick={() => setOpen(true)}>
        Change password
      </button>
      <ChangePasswordDialog open={open} onClose={() => setOpen(false)} />
    </>
  );
}
