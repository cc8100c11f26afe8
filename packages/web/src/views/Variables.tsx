import type { Variable } from "@sluice/client";
import { useState } from "react";
import { Dialog } from "../components/Dialog";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { useOp, useOpMutation } from "../lib/api";
import { Can } from "../lib/session";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { listItems } from "./connections/listItems";
import { UsedByList } from "./connections/UsedByList";
import { VariableForm } from "./variables/VariableForm";
import { VariableRow } from "./variables/VariableRow";

/** Who breaks if the variable goes: asked when the delete dialog opens. */
function VariableUsage({ varKey }: { varKey: string }) {
  const usedBy = useOp("variableUsedBy", { params: { key: varKey } }, { staleTime: 0 });
  if (usedBy.data && usedBy.data.length === 0) return <p className="muted">No pipeline reads it.</p>;
  return (
    <>
      {usedBy.data && <p>These pipelines read it and will fail until it exists again:</p>}
      <UsedByList data={usedBy.data} error={usedBy.error} pending={usedBy.isPending} what={`variable ${varKey}`} />
    </>
  );
}

type Editing = { kind: "create" } | { kind: "edit"; variable: Variable } | null;

/** Variables pipelines read as `${var.KEY}`; secrets are stored encrypted and never shown. */
export default function VariablesView() {
  const list = useOp("listVariables");
  const [filter, setFilter] = useState("");
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Variable | null>(null);
  const del = useOpMutation("deleteVariable", ["listVariables", "variableUsedBy"]);

  const all = listItems(list.data);
  const needle = filter.trim().toLowerCase();
  const rows = needle
    ? all.filter(
        (v) => v.key.toLowerCase().includes(needle) || (v.type === "string" && v.value.toLowerCase().includes(needle)),
      )
    : all;
  const keys = new Set(all.map((v) => v.key));
  const closeEdit = () => setEditing(null);
  const COLUMNS = 5;

  return (
    <>
      <PageHeader
        title="Variables"
        sub={
          <>
            Values pipelines read as <code>{"${var.KEY}"}</code>. Secret values are stored encrypted and never shown.
          </>
        }
        actions={
          <Can op="upsertVariable">
            <button type="button" className="primary" onClick={() => setEditing({ kind: "create" })}>
              Create variable
            </button>
          </Can>
        }
      />
      <ErrorBox error={list.error} />
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
                    placeholder="key or value…"
                  />
                </label>
                <span className="muted">
                  {rows.length === all.length ? `${all.length}` : `${rows.length} of ${all.length}`}{" "}
                  {all.length === 1 ? "variable" : "variables"}
                </span>
              </div>
            )}
            {rows.length === 0 ? (
              <p className="empty">{all.length === 0 ? "No variables yet." : "No variable matches the filter."}</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Value</th>
                    <th scope="col">Type</th>
                    <th scope="col">Updated</th>
                    <th scope="col" style={{ textAlign: "right" }}>
                      Actions
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((v) => (
                    <VariableRow
                      key={v.key}
                      variable={v}
                      columns={COLUMNS}
                      onEdit={() => setEditing({ kind: "edit", variable: v })}
                      onDelete={() => {
                        del.reset();
                        setDeleting(v);
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
        title={editing?.kind === "edit" ? `Edit variable ${editing.variable.key}` : "New variable"}
        onClose={closeEdit}
      >
        {editing && (
          <VariableForm
            key={editing.kind === "edit" ? editing.variable.key : "new"}
            existing={editing.kind === "edit" ? editing.variable : undefined}
            existingKeys={keys}
            onDone={closeEdit}
          />
        )}
      </Dialog>

      <ConfirmDialog
        open={deleting !== null}
        title="Delete variable"
        danger
        busy={del.isPending}
        error={del.error}
        onClose={() => setDeleting(null)}
        onConfirm={() =>
          deleting && del.mutate({ params: { key: deleting.key } }, { onSuccess: () => setDeleting(null) })
        }
      >
        <p style={{ marginTop: 0 }}>
          Delete <strong className="mono">{deleting?.key}</strong>?
        </p>
        {deleting && <VariableUsage varKey={deleting.key} />}
      </ConfirmDialog>
    </>
  );
}
