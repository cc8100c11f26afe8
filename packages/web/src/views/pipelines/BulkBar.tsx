import type { BulkResponse } from "@sluice/client";
import { useState } from "react";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { client, useOpMutation } from "../../lib/api";
import { useQueryClient } from "@tanstack/react-query";
import { Can } from "../../lib/session";
import { ErrorBox } from "../../components/ErrorBox";

/** The bulk endpoint takes at most this many ids per request. */
const BULK_CHUNK = 100;
/** Runs triggered at once from "Trigger selected". */
const TRIGGER_CONCURRENCY = 4;

type Action = "enable" | "disable" | "delete";

interface Outcome {
  action: string;
  succeeded: number;
  errors: { id: string; error: string }[];
}

/**
 * Actions on the selected pipelines: enable, disable and delete through `POST /pipelines/bulk` (in chunks of 100),
 * trigger through one `POST /pipelines/{id}/run` each (the bulk endpoint has no trigger action).
 */
export function BulkBar({
  selected,
  names,
  onDeselect,
}: {
  selected: string[];
  names: ReadonlyMap<string, string>;
  /** Ids to take out of the selection: the deleted ones after a delete, all of them on "Clear selection". */
  onDeselect: (ids: string[]) => void;
}) {
  const qc = useQueryClient();
  const bulk = useOpMutation("bulkPipelines");
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [triggering, setTriggering] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const refresh = () =>
    Promise.all(["pipelineSummary", "listPipelines", "dashboard"].map((k) => qc.invalidateQueries({ queryKey: [k] })));

  const runBulk = async (action: Action) => {
    setError(null);
    setOutcome(null);
    const result: Outcome = { action, succeeded: 0, errors: [] };
    const deleted: string[] = [];
    try {
      for (let i = 0; i < selected.length; i += BULK_CHUNK) {
        const ids = selected.slice(i, i + BULK_CHUNK);
        const res: BulkResponse = await bulk.mutateAsync({ body: { action, ids } });
        result.succeeded += res.succeeded.length;
        result.errors.push(...res.errors);
        if (action === "delete") deleted.push(...res.succeeded);
      }
      setOutcome(result);
      setConfirmDelete(false);
      onDeselect(deleted);
    } catch (e) {
      setError(e);
    } finally {
      await refresh();
    }
  };

  const triggerAll = async () => {
    setError(null);
    setOutcome(null);
    setTriggering(true);
    const result: Outcome = { action: "trigger", succeeded: 0, errors: [] };
    const queue = [...selected];
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        try {
          await client.call("triggerRun", { params: { id }, body: { params: {} } });
          result.succeeded++;
        } catch (e) {
          result.errors.push({ id, error: e instanceof Error ? e.message : String(e) });
        }
      }
    };
    await Promise.all(Array.from({ length: TRIGGER_CONCURRENCY }, worker));
    setTriggering(false);
    setOutcome(result);
    await Promise.all([refresh(), qc.invalidateQueries({ queryKey: ["listRuns"] })]);
  };

  const busy = bulk.isPending || triggering;
  const n = selected.length;
  return (
    <>
      {n > 0 && (
        <div className="pl-bulkbar" role="region" aria-label="Bulk actions">
          <strong>{n} selected</strong>
          <Can op="bulkPipelines">
            <button type="button" disabled={busy} onClick={() => void runBulk("enable")}>
              Enable selected
            </button>
            <button type="button" disabled={busy} onClick={() => void runBulk("disable")}>
              Disable selected
            </button>
          </Can>
          <Can op="triggerRun">
            <button type="button" disabled={busy} onClick={() => void triggerAll()}>
              Trigger selected
            </button>
          </Can>
          <Can op="bulkPipelines">
            <button type="button" className="danger" disabled={busy} onClick={() => setConfirmDelete(true)}>
              Delete selected
            </button>
          </Can>
          <button type="button" className="ghost" disabled={busy} onClick={() => onDeselect(selected)}>
            Clear selection
          </button>
          {busy && <span className="muted">Working…</span>}
        </div>
      )}
      {!confirmDelete && <ErrorBox error={error} title="Bulk action failed" />}
      {outcome && (
        <div className={outcome.errors.length ? "error-box pl-flash" : "ok-box pl-flash"} role="status">
          {outcome.action}: {outcome.succeeded} succeeded
          {outcome.errors.length > 0 && `, ${outcome.errors.length} failed`}
          {outcome.errors.length > 0 && (
            <ul>
              {outcome.errors.slice(0, 20).map((e) => (
                <li key={e.id}>
                  {names.get(e.id) ?? e.id}: {e.error}
                </li>
              ))}
            </ul>
          )}
          <button type="button" className="ghost" onClick={() => setOutcome(null)} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${n} pipeline${n === 1 ? "" : "s"}?`}
        confirmLabel={`Delete ${n}`}
        danger
        busy={busy}
        error={error}
        onConfirm={() => void runBulk("delete")}
        onClose={() => setConfirmDelete(false)}
      >
        <p>This deletes the pipelines and their run history. It cannot be undone.</p>
        <ul className="pl-confirm-list">
          {selected.slice(0, 10).map((id) => (
            <li key={id}>{names.get(id) ?? id}</li>
          ))}
          {n > 10 && <li className="muted">… and {n - 10} more</li>}
        </ul>
      </ConfirmDialog>
    </>
  );
}
