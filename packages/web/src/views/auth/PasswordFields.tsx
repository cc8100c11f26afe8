import { MIN_PASSWORD_LENGTH } from "@sluice/client";
import { useId } from "react";
import { Field } from "./Field";

/** A new password twice; `mismatch` tells the form not to send it. */
export function NewPasswordFields({
  password,
  confirm,
  onPassword,
  onConfirm,
  label = "Password",
}: {
  password: string;
  confirm: string;
  onPassword: (v: string) => void;
  onConfirm: (v: string) => void;
  label?: string;
}) {
  const hintId = useId();
  const mismatch = confirm !== "" && confirm !== password;
  return (
    <>
      <Field id={hintId} hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}>
        <label>
          {label}
          <input
            type="password"
            autoComplete="new-password"
            required
            minLength={MIN_PASSWORD_LENGTH}
            value={password}
            onChange={(e) => onPassword(e.target.value)}
            aria-describedby={hintId}
          />
        </label>
      </Field>
      <Field id={`${hintId}-confirm`} error={mismatch ? "The passwords do not match." : undefined}>
        <label>
          Confirm {label.toLowerCase()}
          <input
            type="password"
            autoComplete="new-password"
            required
            value={confirm}
            onChange={(e) => onConfirm(e.target.value)}
            aria-invalid={mismatch || undefined}
            aria-describedby={`${hintId}-confirm`}
          />
        </label>
      </Field>
    </>
  );
}

export function passwordsReady(password: string, confirm: string): boolean {
  return password.length >= MIN_PASSWORD_LENGTH && password === confirm;
}
