import type { DlqEntry } from "@sluice/client";
import { useQueries } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { Time } from "../components/Time";
import { client, opKey, useOp, useOpMutation } from "../lib/api";
import { Can } from "../lib/session";
import { listItems } from "./connections/listItems";

/** Up to this many pipelines, each is asked for one open entry to mark (and pick) those with dead letters. */
const PROBE_MAX = 40;
const LIMITS = [50, 200, 500] as const;

const MAX_CHARS = 4000;
const SHOWN_ROWS = 5;

function clip(text: string): string {
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n… (${text.length - MAX_CHARS} more characters)` : text;
}

/** A DLQ entry's payload (its input sample or the rejected rows), as JSON, folded when long. */
function PayloadPreview({ payload }: { payload: unknown }) {
  if (payload === null || payload === undefined) return <span className="muted">—</span>;
  const rows = Array.isArray(payload) ? payload : null;
  const shown = rows ? rows.slice(0, SHOWN_ROWS) : payload;
  // rows one per line (JSON Lines): a sample of 5 rows reads like a table, not a page of braces
  const text = clip(
    typeof shown === "string"
      ? shown
      : Array.isArray(shown)
        ? shown.map((r) => JSON.stringify(r)).join("\n")
        : JSON.stringify(shown, null, 2),
  );
  const summary = rows
    ? `${rows.length} ${rows.length === 1 ? "row" : "rows"}`
    : typeof payload === "object"
      ? "payload"
      : String(payload).slice(0, 60);
  return (
    <details>
      <summary style={{ cursor: "pointer" }}>{summary}</summary>
      <pre
        style={{
          margin: "6px 0 0",
          maxHeight: 260,
          maxWidth: 380,
          overflow: "auto",
          background: "var(--panel-2)",
          border: "1px solid var(--border)",
          borderRadius: "var(--radius)",
          padding: 8,
        }}
      >
        {text}
        {rows && rows.length > SHOWN_ROWS && `\n… and ${rows.length - SHOWN_ROWS} more rows`}
      </pre>
    </details>
  );
}

const top = { verticalAlign: "top" } as const;

function EntryRow({ entry: e }: { entry: DlqEntry }) {
  const resolve = useOpMutation("resolveDlq", ["listDlq"]);
  return (
    <tr className="dlq-entry">
      <td style={{ ...top, minWidth: 140 }}>
        <div>{e.node_name || e.node_id}</div>
        {e.node_name && e.node_name !== e.node_id && <code className="muted">{e.node_id}</code>}
      </td>
      <td style={{ ...top, minWidth: 240, maxWidth: 360 }}>
        <div style={{ whiteSpace: "pre-wrap", wordBreak: "break-word", color: "var(--danger)" }}>{e.error}</div>
      </td>
      <td style={top}>
        <PayloadPreview payload={e.payload} />
      </td>
      <td style={top}>
        <Link to={`/runs/${encodeURIComponent(e.run_id)}`} className="mono" title={e.run_id}>
          {e.run_id.slice(-8)}
        </Link>
      </td>
      <td style={top}>
        <Time value={e.created_at} />
      </td>
      <td style={top}>
        {e.resolved ? (
          <>
            <span className="status status-success">resolved</span>
            <div className="muted" style={{ fontSize: 12 }}>
              <Time value={e.resolved_at} relative />
            </div>
          </>
        ) : (
          <span className="status status-failed">open</span>
        )}
      </td>
      <td style={{ ...top, textAlign: "right" }}>
        {!e.resolved && (
          <Can op="resolveDlq">
            <button
              type="button"
              disabled={resolve.isPending}
              onClick={() => resolve.mutate({ params: { id: e.pipeline_id, dlqId: e.id } })}
            >
              {resolve.isPending ? "Resolving…" : "Resolve"}
            </button>
          </Can>
        )}
        <ErrorBox error={resolve.error} />
      </td>
    </tr>
  );
}

/**
 * Dead letters: what nodes could not deliver (a failed node's input sample, rows a quality check rejected). The API
 * lists them per pipeline; `?pipeline=` picks one (shareable), `?resolved=1` includes resolved entries.
 */
export default function DlqView() {
  const [params, setParams] = useSearchParams();
  const pipelines = useOp("listPipelines");
  const all = listItems(pipelines.data);
  const probing = all.length > 0 && all.length <= PROBE_MAX;
  const probes = useQueries({
    queries: (probing ? all : []).map((p) => {
      const input = { params: { id: p.id }, query: { limit: 1 } };
      return { queryKey: opKey("listDlq", input), queryFn: () => client.call("listDlq", input) };
    }),
  });
  const openIn = new Map<string, boolean>();
  probes.forEach((q, i) => {
    const p = all[i];
    if (p && q.data) openIn.set(p.id, q.data.length > 0);
  });
  const probesDone = probes.every((q) => !q.isPending);

  const requested = params.get("pipeline");
  const includeResolved = params.get("resolved") === "1";
  const limit = LIMITS.find((l) => String(l) === params.get("limit")) ?? LIMITS[0];
  const fallback = all.find((p) => openIn.get(p.id)) ?? all[0];
  const selectedId = requested ?? (probing && !probesDone ? undefined : fallback?.id);
  const selected = all.find((p) => p.id === selectedId);

  const entries = useOp(
    "listDlq",
    { params: { id: selectedId ?? "" }, query: { include_resolved: includeResolved, limit } },
    { enabled: selectedId !== undefined },
  );
  const set = (key: string, value: string | null) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value === null) next.delete(key);
        else next.set(key, value);
        return next;
      },
      { replace: key !== "pipeline" },
    );

  const list = entries.data ?? [];
  const open = list.filter((e) => !e.resolved).length;

  return (
    <>
      <PageHeader
        title="Dead letters"
        sub="Input samples of nodes that failed for good, and rows rejected by quality checks. Resolve an entry once it is handled."
      />
      <ErrorBox error={pipelines.error} />
      {pipelines.isPending ? (
        <Loading />
      ) : all.length === 0 ? (
        <p className="panel empty">No pipelines yet, so no dead letters.</p>
      ) : (
        <>
          <div className="row" style={{ marginBottom: 12 }}>
            <label className="inline">
              Pipeline
              <select value={selectedId ?? ""} onChange={(e) => set("pipeline", e.target.value)}>
                {selectedId === undefined && <option value="">Choosing…</option>}
                {requested !== null && !selected && <option value={requested}>{requested} (unknown)</option>}
                {all.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                    {openIn.get(p.id) ? " — has open entries" : ""}
                  </option>
                ))}
              </select>
            </label>
            <label className="inline">
              <input
                type="checkbox"
                checked={includeResolved}
                onChange={(e) => set("resolved", e.target.checked ? "1" : null)}
              />
              Include resolved
            </label>
            <label className="inline">
              Show
              <select value={limit} onChange={(e) => set("limit", e.target.value === "50" ? null : e.target.value)}>
                {LIMITS.map((l) => (
                  <option key={l} value={l}>
                    {l} newest
                  </option>
                ))}
              </select>
            </label>
            {selected && (
              <Link to={`/pipelines/${encodeURIComponent(selected.id)}`} style={{ marginLeft: "auto" }}>
                Open pipeline →
              </Link>
            )}
          </div>
          <ErrorBox error={entries.error} />
          {selectedId === undefined || entries.isPending ? (
            <Loading />
          ) : (
            entries.data && (
              <div className="panel" style={{ padding: 0, overflowX: "auto" }}>
                {list.length > 0 && (
                  <div className="muted" style={{ padding: "10px 12px", borderBottom: "1px solid var(--border)" }}>
                    {open} open
                    {includeResolved && `, ${list.length - open} resolved`}
                    {list.length >= limit && ` (showing the ${limit} newest)`}
                  </div>
                )}
                {list.length === 0 ? (
                  <p className="empty">
                    {includeResolved ? "This pipeline has no dead letters." : "No open dead letters for this pipeline."}
                  </p>
                ) : (
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Node</th>
                        <th scope="col">Error</th>
                        <th scope="col">Payload</th>
                        <th scope="col">Run</th>
                        <th scope="col">Created</th>
                        <th scope="col">State</th>
                        <th scope="col" aria-label="Actions" />
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((e) => (
                        <EntryRow key={e.id} entry={e} />
                      ))}
                    </tbody>
                  </table>
                )}
              </div>
            )
          )}
        </>
      )}
    </>
  );
}
