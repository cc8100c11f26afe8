import type { Connection, ConnectionType, ConnectionTypeInfo, ConnectionUpdate } from "@sluice/client";
import { useId, useState, type CSSProperties, type FormEvent } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { useOpMutation } from "../../lib/api";
import { Field } from "../auth/Field";
import { CONN_ID_PATTERN } from "@sluice/client";
import { DEFAULT_PORTS, extraPlaceholder, hostLabel, hostPlaceholder } from "./fieldLabels";

const pair: CSSProperties = { display: "grid", gridTemplateColumns: "minmax(0, 2fr) minmax(0, 1fr)", gap: 12 };

/** Extra must be a JSON object (the server refuses anything else); "" means none. */
function extraProblem(extra: string): string | null {
  if (extra.trim() === "") return null;
  try {
    const v: unknown = JSON.parse(extra);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? null : "Extra must be a JSON object: { … }";
  } catch (e) {
    return `Extra is not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/**
 * Create or edit a connection; the fields shown are those of its type (GET /connection-types). The password and
 * `extra` (tokens, keys) are write-only: never pre-filled nor shown; left empty on edit, they keep their stored value.
 */
export function ConnectionForm({
  types,
  existing,
  onDone,
}: {
  types: ConnectionTypeInfo[];
  /** The connection to edit, as the list shows it (no secrets); absent: create. */
  existing?: Connection;
  onDone: () => void;
}) {
  const editing = existing !== undefined;
  const ids = useId();
  const [connId, setConnId] = useState(existing?.conn_id ?? "");
  const [type, setType] = useState<ConnectionType>(existing?.type ?? types[0]?.type ?? "postgres");
  const [host, setHost] = useState(existing?.host ?? "");
  const [port, setPort] = useState(
    existing?.port === null || existing?.port === undefined ? "" : String(existing.port),
  );
  const [schema, setSchema] = useState(existing?.schema ?? "");
  const [login, setLogin] = useState(existing?.login ?? "");
  const [password, setPassword] = useState("");
  const [extra, setExtra] = useState("");
  const [clearExtra, setClearExtra] = useState(false);
  const [touched, setTouched] = useState(false);
  const create = useOpMutation("createConnection", ["listConnections", "connectionUsedBy"]);
  const update = useOpMutation("updateConnection", ["listConnections", "getConnection", "connectionUsedBy"]);
  const m = editing ? update : create;

  const fields = new Set(types.find((t) => t.type === type)?.fields ?? []);
  const connIdProblem = editing
    ? null
    : connId !== "" && !CONN_ID_PATTERN.test(connId)
      ? "Lowercase letters, digits, _ and -, starting with a letter or digit (at most 63 characters)."
      : touched && connId === ""
        ? "A connection id is required."
        : null;
  const portNumber = port.trim() === "" ? null : Number(port);
  const portProblem =
    portNumber !== null && !(Number.isInteger(portNumber) && portNumber >= 0 && portNumber <= 65535)
      ? "A port is a whole number from 0 to 65535."
      : null;
  const extraError = fields.has("extra") && !clearExtra ? extraProblem(extra) : null;
  const invalid = (!editing && connId === "") || connIdProblem !== null || portProblem !== null || extraError !== null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (invalid) return;
    const body: ConnectionUpdate = { type };
    if (fields.has("host")) body.host = host.trim();
    if (fields.has("port")) body.port = portNumber;
    if (fields.has("schema")) body.schema = schema.trim();
    if (fields.has("login")) body.login = login;
    // empty on edit: omitted, the stored secret stays
    if (fields.has("password") && password !== "") body.password = password;
    if (fields.has("extra")) {
      if (clearExtra) body.extra = "";
      else if (extra.trim() !== "") body.extra = extra;
    }
    if (editing) {
      update.mutate({ params: { conn_id: existing.conn_id }, body }, { onSuccess: onDone });
    } else {
      create.mutate({ body: { ...body, type, conn_id: connId } }, { onSuccess: onDone });
    }
  };

  const secretPlaceholder = editing ? "•••••• (unchanged if left empty)" : "";
  return (
    <form className="stack" onSubmit={submit} aria-label={editing ? "Edit connection" : "New connection"} noValidate>
      <div style={pair}>
        <Field
          id={`${ids}-connid`}
          error={connIdProblem}
          hint={
            editing
              ? "The id pipelines refer to; it cannot be changed."
              : "Pipelines refer to it as conn_id. Lowercase slug, unique."
          }
        >
          <label>
            Connection id
            <input
              className="mono"
              required
              autoFocus={!editing}
              readOnly={editing}
              style={editing ? { background: "var(--panel-2)" } : undefined}
              value={connId}
              onChange={(e) => setConnId(e.target.value)}
              placeholder="warehouse_pg"
              spellCheck={false}
              aria-invalid={connIdProblem !== null || undefined}
              aria-describedby={`${ids}-connid`}
            />
          </label>
        </Field>
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.target.value as ConnectionType)}>
            {types.map((t) => (
              <option key={t.type} value={t.type}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
      </div>

      {(fields.has("host") || fields.has("port")) && (
        <div style={fields.has("port") ? pair : undefined}>
          {fields.has("host") && (
            <label>
              {hostLabel(type)}
              <input
                value={host}
                onChange={(e) => setHost(e.target.value)}
                placeholder={hostPlaceholder(type)}
                spellCheck={false}
              />
            </label>
          )}
          {fields.has("port") && (
            <Field id={`${ids}-port`} error={portProblem}>
              <label>
                Port
                <input
                  inputMode="numeric"
                  value={port}
                  onChange={(e) => setPort(e.target.value)}
                  placeholder={DEFAULT_PORTS[type] !== undefined ? `${DEFAULT_PORTS[type]} (default)` : "default"}
                  aria-invalid={portProblem !== null || undefined}
                  aria-describedby={`${ids}-port`}
                />
              </label>
            </Field>
          )}
        </div>
      )}

      {fields.has("schema") && (
        <label>
          Database
          <input
            value={schema}
            onChange={(e) => setSchema(e.target.value)}
            placeholder="analytics"
            spellCheck={false}
          />
        </label>
      )}

      {(fields.has("login") || fields.has("password")) && (
        <div style={{ ...pair, gridTemplateColumns: "minmax(0, 1fr) minmax(0, 1fr)" }}>
          {fields.has("login") && (
            <label>
              Username
              <input value={login} onChange={(e) => setLogin(e.target.value)} autoComplete="off" spellCheck={false} />
            </label>
          )}
          {fields.has("password") && (
            <label>
              Password
              <input
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                autoComplete="new-password"
                placeholder={secretPlaceholder}
              />
            </label>
          )}
        </div>
      )}

      {fields.has("extra") && (
        <Field
          id={`${ids}-extra`}
          error={extraError && extra !== "" ? extraError : null}
          hint="Options, headers, tokens, keys. Stored encrypted and never shown again."
        >
          <label>
            Extra (JSON object)
            <textarea
              value={extra}
              onChange={(e) => setExtra(e.target.value)}
              disabled={clearExtra}
              rows={5}
              style={{ minHeight: 96 }}
              spellCheck={false}
              placeholder={
                editing
                  ? "•••••• (unchanged if left empty; a new object replaces the stored one)"
                  : extraPlaceholder(type)
              }
              aria-invalid={(touched || extra !== "") && extraError !== null ? true : undefined}
              aria-describedby={`${ids}-extra`}
            />
          </label>
        </Field>
      )}
      {editing && fields.has("extra") && (
        <label className="inline">
          <input type="checkbox" checked={clearExtra} onChange={(e) => setClearExtra(e.target.checked)} />
          Remove the stored extra
        </label>
      )}

      <ErrorBox error={m.error} />
      <div className="actions" style={{ justifyContent: "flex-end" }}>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={m.isPending || (touched && invalid)}>
          {m.isPending ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}
