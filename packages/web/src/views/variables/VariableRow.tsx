import type { Variable } from "@sluice/client";
import { useState } from "react";
import { Time } from "../../components/Time";
import { useOp } from "../../lib/api";
import { Can } from "../../lib/session";
import { UsedByList } from "../connections/UsedByList";

const PREVIEW = 120;

/** One variable; a secret's value is never in the page (the API sends `********`, shown as dots). */
export function VariableRow({
  variable: v,
  onEdit,
  onDelete,
  columns,
}: {
  variable: Variable;
  onEdit: () => void;
  onDelete: () => void;
  columns: number;
}) {
  const [showUsedBy, setShowUsedBy] = useState(false);
  const usedBy = useOp("variableUsedBy", { params: { key: v.key } }, { enabled: showUsedBy });
  const secret = v.type === "secret";
  const long = !secret && v.value.length > PREVIEW;
  return (
    <>
      <tr>
        <td>
          <strong className="mono">{v.key}</strong>
        </td>
        <td className="mono" style={{ maxWidth: 420, wordBreak: "break-all" }}>
          {secret ? (
            <span title="Secret: the value is never shown">••••••</span>
          ) : v.value === "" ? (
            <span className="muted">(empty)</span>
          ) : (
            <span title={long ? v.value.slice(0, 2000) : undefined}>
              {long ? `${v.value.slice(0, PREVIEW)}…` : v.value}
            </span>
          )}
        </td>
        <td>
          <span className={secret ? "status status-cancelled" : "status status-pending"}>{v.type}</span>
        </td>
        <td>
          <Time value={v.updated_at} />
        </td>
        <td>
          <div className="actions" style={{ justifyContent: "flex-end", flexWrap: "nowrap", whiteSpace: "nowrap" }}>
            <button type="button" aria-expanded={showUsedBy} onClick={() => setShowUsedBy((x) => !x)}>
              Used by
            </button>
            <Can op="updateVariable">
              <button type="button" onClick={onEdit}>
                Edit
              </button>
            </Can>
            <Can op="deleteVariable">
              <button type="button" className="danger" onClick={onDelete}>
                Delete
              </button>
            </Can>
          </div>
        </td>
      </tr>
      {showUsedBy && (
        <tr>
          <td colSpan={columns} style={{ background: "var(--panel-2)" }}>
            <h3 style={{ fontSize: 13 }}>Used by</h3>
            <UsedByList data={usedBy.data} error={usedBy.error} pending={usedBy.isPending} what={`variable ${v.key}`} />
          </td>
        </tr>
      )}
    </>
  );
}
