import type { Connection, ConnectionTestResult } from "@sluice/client";
import { useState } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { Time } from "../../components/Time";
import { useOp, useOpMutation } from "../../lib/api";
import { Can } from "../../lib/session";
import { targetOf } from "./fieldLabels";
import { TestResult } from "./TestResult";
import { UsedByList } from "./UsedByList";

/** One connection: its row, and below it what was asked of it (a test's result, the pipelines using it). */
export function ConnectionRow({
  connection: c,
  typeLabel,
  onEdit,
  onDelete,
  columns,
}: {
  connection: Connection;
  typeLabel: string;
  onEdit: () => void;
  onDelete: () => void;
  columns: number;
}) {
  const [showUsedBy, setShowUsedBy] = useState(false);
  const [tested, setTested] = useState<{ result: ConnectionTestResult; ms: number } | null>(null);
  const test = useOpMutation("testConnection");
  const usedBy = useOp("connectionUsedBy", { params: { conn_id: c.conn_id } }, { enabled: showUsedBy });
  const runTest = () => {
    setTested(null);
    const started = performance.now();
    test.mutate(
      { params: { conn_id: c.conn_id } },
      { onSuccess: (result) => setTested({ result, ms: Math.round(performance.now() - started) }) },
    );
  };
  const target = targetOf(c);
  const open = showUsedBy || test.isPending || tested !== null || test.error !== null;
  return (
    <>
      <tr>
        <td>
          <strong className="mono">{c.conn_id}</strong>
        </td>
        <td>{typeLabel}</td>
        <td className="mono" style={{ wordBreak: "break-all" }}>
          {target || <span className="muted">—</span>}
        </td>
        <td>{c.login || <span className="muted">—</span>}</td>
        <td>
          <Time value={c.updated_at} />
        </td>
        <td>
          <div className="actions" style={{ justifyContent: "flex-end", flexWrap: "nowrap", whiteSpace: "nowrap" }}>
            <Can op="testConnection">
              <button type="button" onClick={runTest} disabled={test.isPending}>
                {test.isPending ? "Testing…" : "Test"}
              </button>
            </Can>
            <button type="button" aria-expanded={showUsedBy} onClick={() => setShowUsedBy((v) => !v)}>
              Used by
            </button>
            <Can op="updateConnection">
              <button type="button" onClick={onEdit}>
                Edit
              </button>
            </Can>
            <Can op="deleteConnection">
              <button type="button" className="danger" onClick={onDelete}>
                Delete
              </button>
            </Can>
          </div>
        </td>
      </tr>
      {open && (
        <tr className="detail-row">
          <td colSpan={columns} style={{ background: "var(--panel-2)" }}>
            <div className="stack" style={{ gap: 8 }}>
              {test.isPending && <span className="muted">Testing {c.conn_id} (up to 5 s)…</span>}
              {tested && <TestResult result={tested.result} ms={tested.ms} />}
              <ErrorBox error={test.error} title="Test" />
              {showUsedBy && (
                <div>
                  <h3 style={{ fontSize: 13 }}>Used by</h3>
                  <UsedByList
                    data={usedBy.data}
                    error={usedBy.error}
                    pending={usedBy.isPending}
                    what={`connection ${c.conn_id}`}
                  />
                </div>
              )}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
