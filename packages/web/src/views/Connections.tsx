import type { Connection } from "@sluice/client";
import { useMemo, useState } from "react";
import { Dialog } from "../components/Dialog";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { useOp, useOpMutation } from "../lib/api";
import { Can } from "../lib/session";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ConnectionForm } from "./connections/ConnectionForm";
import { ConnectionRow } from "./connections/ConnectionRow";
import { targetOf } from "./connections/fieldLabels";
import { listItems } from "./connections/listItems";
import { UsedByList } from "./connections/UsedByList";

/** Who breaks if the connection goes: asked when the delete dialog opens. */
function ConnectionUsage({ connId }: { connId: string }) {
  const usedBy = useOp("connectionUsedBy", { params: { conn_id: connId } }, { staleTime: 0 });
  if (usedBy.data && usedBy.data.length === 0) return <p className="muted">No pipeline uses it.</p>;
  return (
    <>
      {usedBy.data && <p>These pipelines use it and will fail until it exists again:</p>}
      <UsedByList data={usedBy.data} error={usedBy.error} pending={usedBy.isPending} what={`connection ${connId}`} />
    </>
  );
}

type Editing = { kind: "create" } | { kind: "edit"; connection: Connection } | null;

/**
 * Connections: what pipelines reach through `conn_id`. The list is all a viewer needs (GET /connections, secrets
 * never included); editors create, edit, test and delete.
 */
export default function ConnectionsView() {
  const list = useOp("listConnections");
  const types = useOp("connectionTypes");
  const [filter, setFilter] = useState("");
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Connection | null>(null);
  const del = useOpMutation("deleteConnection", ["listConnections", "connectionUsedBy"]);

  const labels = useMemo(() => new Map((types.data ?? []).map((t) => [t.type as string, t.label])), [types.data]);
  const all = listItems(list.data);
  const needle = filter.trim().toLowerCase();
  const rows = needle
    ? all.filter((c) =>
        [c.conn_id, c.type, labels.get(c.type) ?? "", targetOf(c), c.login].some((v) =>
          v.toLowerCase().includes(needle),
        ),
      )
    : all;
  const closeEdit = () => setEditing(null);
  const COLUMNS = 6;

  return (
    <>
      <PageHeader
        title="Connections"
        sub="Databases, APIs and stores that pipeline nodes reach by conn_id. Passwords and extra are stored encrypted and never shown."
        actions={
          <Can op="createConnection">
            <button type="button" className="primary" onClick={() => setEditing({ kind: "create" })}>
              Create connection
            </button>
          </Can>
        }
      />
      <ErrorBox error={list.error} />
      <ErrorBox error={types.error} title="Connection types" />
      {list.isPending ? (
        <Loading />
      ) : (
        list.data && (
          <div className="panel" style={{ padding: 0, overflowX: "auto" }}>
            {all.length > 0 && (
              <div className="row" style={{ padding: "10px 12px", borderBottom: "1px solid var(--border)" }}>
                <label className="inline">
                  Filter
                  <input
                    type="search"
                    value={filter}
                    onChange={(e) => setFilter(e.target.value)}
                    placeholder="id, type, host…"
                  />
                </label>
                <span className="muted">
                  {rows.length === all.length ? `${all.length}` : `${rows.length} of ${all.length}`}{" "}
                  {all.length === 1 ? "connection" : "connections"}
                </span>
              </div>
            )}
            {rows.length === 0 ? (
              <p className="empty">{all.length === 0 ? "No connections yet." : "No connection matches the filter."}</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Connection id</th>
                    <th scope="col">Type</th>
                    <th scope="col">Host</th>
                    <th scope="col">Login</th>
                    <th scope="col">Updated</th>
                    <th scope="col" style={{ textAlign: "right" }}>
                      Actions
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((c) => (
                    <ConnectionRow
                      key={c.conn_id}
                      connection={c}
                      typeLabel={labels.get(c.type) ?? c.type}
                      columns={COLUMNS}
                      onEdit={() => setEditing({ kind: "edit", connection: c })}
                      onDelete={() => {
                        del.reset();
                        setDeleting(c);
                      }}
                    />
                  ))}
                </tbody>
              </table>
            )}
          </div>
        )
      )}

      <Dialog
        open={editing !== null}
        title={editing?.kind === "edit" ? `Edit connection ${editing.connection.conn_id}` : "New connection"}
        onClose={closeEdit}
      >
        {editing &&
          (types.data ? (
            <ConnectionForm
              key={editing.kind === "edit" ? editing.connection.conn_id : "new"}
              types={types.data}
              existing={editing.kind === "edit" ? editing.connection : undefined}
              onDone={closeEdit}
            />
          ) : types.error ? (
            <ErrorBox error={types.error} />
          ) : (
            <Loading />
          ))}
      </Dialog>

      <ConfirmDialog
        open={deleting !== null}
        title="Delete connection"
        danger
        busy={del.isPending}
        error={del.error}
        onClose={() => setDeleting(null)}
        onConfirm={() =>
          deleting && del.mutate({ params: { conn_id: deleting.conn_id } }, { onSuccess: () => setDeleting(null) })
        }
      >
        <p style={{ marginTop: 0 }}>
          Delete <strong className="mono">{deleting?.conn_id}</strong>? Its stored password cannot be recovered.
        </p>
        {deleting && <ConnectionUsage connId={deleting.conn_id} />}
      </ConfirmDialog>
    </>
  );
}
