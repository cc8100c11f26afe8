import type { Variable } from "@sluice/client";
import { useId, useState, type FormEvent } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { useOpMutation } from "../../lib/api";
import { Field } from "../auth/Field";
import { MASKED_SECRET as MASKED, VARIABLE_KEY_PATTERN as KEY_PATTERN } from "@sluice/client";

/**
 * Create or edit a variable. A secret's value is write-only: never pre-filled; left empty on edit, `********` is sent,
 * which the server reads as "keep the stored value".
 */
export function VariableForm({
  existing,
  existingKeys,
  onDone,
}: {
  existing?: Variable;
  /** Keys already in use: creating one of them would replace it (POST upserts). */
  existingKeys: ReadonlySet<string>;
  onDone: () => void;
}) {
  const editing = existing !== undefined;
  const ids = useId();
  const wasSecret = existing?.type === "secret";
  const [key, setKey] = useState(existing?.key ?? "");
  const [value, setValue] = useState(wasSecret ? "" : (existing?.value ?? ""));
  const [secret, setSecret] = useState(wasSecret);
  const [touched, setTouched] = useState(false);
  const create = useOpMutation("upsertVariable", ["listVariables", "getVariable", "variableUsedBy"]);
  const update = useOpMutation("updateVariable", ["listVariables", "getVariable", "variableUsedBy"]);
  const m = editing ? update : create;

  const keyProblem = editing
    ? null
    : key !== "" && !KEY_PATTERN.test(key)
      ? "Start with a letter or _, then letters, digits, _ . - (at most 128 characters)."
      : touched && key === ""
        ? "A key is required."
        : null;
  const keepSecret = wasSecret && value === "";
  const revealProblem =
    keepSecret && !secret
      ? "To make this secret a plain string, enter its new value (the old one is never shown)."
      : null;
  const replaces = !editing && existingKeys.has(key);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (key === "" || keyProblem || revealProblem) return;
    const type = secret ? "secret" : "string";
    const sent = keepSecret ? MASKED : value;
    if (editing) update.mutate({ params: { key: existing.key }, body: { value: sent, type } }, { onSuccess: onDone });
    else create.mutate({ body: { key, value: sent, type } }, { onSuccess: onDone });
  };

  return (
    <form className="stack" onSubmit={submit} aria-label={editing ? "Edit variable" : "New variable"} noValidate>
      <Field
        id={`${ids}-key`}
        error={keyProblem ?? (replaces ? `A variable ${key} exists already: saving replaces its value.` : null)}
        hint={editing ? "Keys cannot be renamed." : "Pipelines read it as ${var.KEY}."}
      >
        <label>
          Key
          <input
            className="mono"
            required
            autoFocus={!editing}
            readOnly={editing}
            style={editing ? { background: "var(--panel-2)" } : undefined}
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="API_BASE_URL"
            spellCheck={false}
            aria-invalid={keyProblem !== null || undefined}
            aria-describedby={`${ids}-key`}
          />
        </label>
      </Field>
      <label className="inline">
        <input type="checkbox" checked={secret} onChange={(e) => setSecret(e.target.checked)} />
        Secret — stored encrypted, shown as •••••• and masked in logs
      </label>
      <Field id={`${ids}-value`} error={revealProblem}>
        <label>
          Value
          {secret ? (
            <input
              type="password"
              autoComplete="new-password"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              placeholder={wasSecret ? "•••••• (unchanged if left empty)" : ""}
            />
          ) : (
            <textarea
              value={value}
              onChange={(e) => setValue(e.target.value)}
              rows={3}
              style={{ minHeight: 72 }}
              spellCheck={false}
              placeholder={wasSecret ? "The new plain value" : ""}
            />
          )}
        </label>
      </Field>
      <ErrorBox error={m.error} />
      <div className="actions" style={{ justifyContent: "flex-end" }}>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={m.isPending || revealProblem !== null}>
          {m.isPending ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}
