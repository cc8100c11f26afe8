import type { ColumnProfile } from "@sluice/client";
import { useState } from "react";
import { Dialog } from "../../components/Dialog";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { useOp } from "../../lib/api";

type Tab = "preview" | "profile";

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function stat(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number") return value.toLocaleString(undefined, { maximumFractionDigits: 4 });
  return cell(value);
}

/** A node's output in this run: the first rows (preview) and the per-column profile of the whole output. */
export function NodeDataDialog({
  runId,
  nodeId,
  onClose,
}: {
  runId: string;
  nodeId: string | null;
  onClose: () => void;
}) {
  const [tab, setTab] = useState<Tab>("preview");
  return (
    <Dialog open={nodeId !== null} title={`Output of ${nodeId ?? ""}`} onClose={onClose} wide>
      {nodeId !== null && (
        <>
          <div className="tabs" role="tablist">
            <button type="button" role="tab" aria-selected={tab === "preview"} onClick={() => setTab("preview")}>
              Preview
            </button>
            <button type="button" role="tab" aria-selected={tab === "profile"} onClick={() => setTab("profile")}>
              Profile
            </button>
          </div>
          <div role="tabpanel">
            {tab === "preview" ? (
              <PreviewTable runId={runId} nodeId={nodeId} />
            ) : (
              <ProfileTable runId={runId} nodeId={nodeId} />
            )}
          </div>
        </>
      )}
    </Dialog>
  );
}

function PreviewTable({ runId, nodeId }: { runId: string; nodeId: string }) {
  const q = useOp("nodePreview", { params: { run_id: runId, node_id: nodeId } });
  if (q.isPending) return <Loading label="Loading preview" />;
  if (q.error) return <ErrorBox error={q.error} />;
  const { columns, rows } = q.data;
  if (rows.length === 0) return <div className="empty">The node produced no rows.</div>;
  return (
    <>
      <p className="muted small">
        First {rows.length.toLocaleString()} row{rows.length === 1 ? "" : "s"} · {columns.length} column
        {columns.length === 1 ? "" : "s"}
      </p>
      <div className="data-scroll">
        <table className="data-table">
          <thead>
            <tr>
              <th className="num">#</th>
              {columns.map((c) => (
                <th key={c}>{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                <td className="num muted">{i + 1}</td>
                {columns.map((c) => {
                  const v = row[c];
                  return (
                    <td key={c} className={typeof v === "number" ? "num" : undefined}>
                      {v === null || v === undefined ? <span className="null">null</span> : cell(v)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function ProfileTable({ runId, nodeId }: { runId: string; nodeId: string }) {
  const q = useOp("nodeProfile", { params: { run_id: runId, node_id: nodeId } });
  if (q.isPending) return <Loading label="Loading profile" />;
  if (q.error) return <ErrorBox error={q.error} />;
  const { row_count, columns } = q.data;
  return (
    <>
      <p className="muted small">
        {row_count.toLocaleString()} row{row_count === 1 ? "" : "s"} profiled · {columns.length} column
        {columns.length === 1 ? "" : "s"}
      </p>
      <div className="data-scroll">
        <table className="data-table">
          <thead>
            <tr>
              <th>Column</th>
              <th>Type</th>
              <th className="num">Nulls</th>
              <th className="num">Distinct</th>
              <th>Min</th>
              <th>Max</th>
              <th className="num">Mean</th>
            </tr>
          </thead>
          <tbody>
            {columns.map((c: ColumnProfile) => (
              <tr key={c.name}>
                <td className="mono">{c.name}</td>
                <td>
                  <code>{c.type}</code>
                </td>
                <td className="num">
                  {c.null_count.toLocaleString()} <span className="muted">({c.null_pct}%)</span>
                </td>
                <td className="num">{c.distinct_count.toLocaleString()}</td>
                <td className="mono">{stat(c.min)}</td>
                <td className="mono">{stat(c.max)}</td>
                <td className="num">{stat(c.mean)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
