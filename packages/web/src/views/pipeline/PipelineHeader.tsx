import type { Pipeline } from "@sluice/client";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { PageHeader } from "../../components/PageHeader";
import { StatusBadge } from "../../components/StatusBadge";
import { Time } from "../../components/Time";
import { client, useOp, useOpMutation } from "../../lib/api";
import { Can } from "../../lib/session";
import { ErrorBox } from "../../components/ErrorBox";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { downloadJson, safeFileName } from "./download";
import { TriggerDialog } from "./TriggerDialog";

const LIST_KEYS = ["pipelineSummary", "listPipelines", "dashboard"] as const;

/** Name, description, schedule and state of the pipeline, with its actions (each shown only to who may use it). */
export function PipelineHeader({ pipeline, lastStatus }: { pipeline: Pipeline; lastStatus: string | null }) {
  const navigate = useNavigate();
  // the summary (shared with the pipelines list) carries every pipeline's next scheduled run
  const summary = useOp("pipelineSummary", undefined, { enabled: Boolean(pipeline.schedule) });
  const next = summary.data?.find((s) => s.id === pipeline.id)?.next_run_at ?? null;
  const dlq = useOp("listDlq", { params: { id: pipeline.id }, query: { limit: 500 } });
  const dlqCount = dlq.data?.length ?? 0;

  const [triggerOpen, setTriggerOpen] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const patch = useOpMutation("patchPipeline", ["getPipeline", "listVersions", ...LIST_KEYS]);
  const clone = useOpMutation("clonePipeline", [...LIST_KEYS]);
  const remove = useOpMutation("deletePipeline", [...LIST_KEYS]);

  const doExport = async () => {
    setExportError(null);
    try {
      const doc = await client.call("exportPipeline", { params: { id: pipeline.id } });
      downloadJson(`${safeFileName(pipeline.name)}.json`, doc);
    } catch (e) {
      setExportError(e);
    }
  };

  const tz = pipeline.schedule_timezone || "UTC";
  return (
    <>
      <PageHeader
        title={pipeline.name}
        sub={pipeline.description || undefined}
        actions={
          <>
            <Can op="triggerRun">
              <button type="button" className="primary" onClick={() => setTriggerOpen(true)}>
                <span aria-hidden="true">▶</span> Trigger
              </button>
            </Can>
            <button type="button" onClick={() => void doExport()}>
              Export
            </button>
            <Can op="clonePipeline">
              <button
                type="button"
                disabled={clone.isPending}
                onClick={() =>
                  clone.mutate(
                    { params: { id: pipeline.id } },
                    { onSuccess: (copy) => navigate(`/pipelines/${encodeURIComponent(copy.id)}`) },
                  )
                }
              >
                {clone.isPending ? "Cloning…" : "Clone"}
              </button>
            </Can>
            <Can op="deletePipeline">
              <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
                Delete
              </button>
            </Can>
          </>
        }
      />
      <div className="pl-meta panel">
        <div className="pl-meta-item">
          <span className="pl-meta-label">Schedule</span>
          {pipeline.schedule ? (
            <span>
              <code>{pipeline.schedule}</code> <span className="muted">({tz})</span>
            </span>
          ) : (
            <span className="muted">manual only</span>
          )}
        </div>
        <div className="pl-meta-item">
          <span className="pl-meta-label">Next run</span>
          {!pipeline.schedule ? (
            <span className="muted">—</span>
          ) : pipeline.enabled ? (
            <Time value={next} />
          ) : (
            <span className="muted">paused</span>
          )}
        </div>
        <div className="pl-meta-item">
          <span className="pl-meta-label">State</span>
          <span className="pl-state">
            <span className={pipeline.enabled ? "pl-enabled" : "pl-disabled"}>
              {pipeline.enabled ? "enabled" : "disabled"}
            </span>
            <Can op="patchPipeline">
              <button
                type="button"
                className="pl-small"
                disabled={patch.isPending}
                onClick={() => patch.mutate({ params: { id: pipeline.id }, body: { enabled: !pipeline.enabled } })}
              >
                {pipeline.enabled ? "Disable" : "Enable"}
              </button>
            </Can>
          </span>
        </div>
        <div className="pl-meta-item">
          <span className="pl-meta-label">Last run</span>
          <StatusBadge status={lastStatus} />
        </div>
        <div className="pl-meta-item">
          <span className="pl-meta-label">Dead letters</span>
          <Link
            to={`/dlq?pipeline=${encodeURIComponent(pipeline.id)}`}
            className={dlqCount > 0 ? "pl-dlq-link has" : "pl-dlq-link"}
            aria-label={`${dlqCount} unresolved dead letters`}
          >
            {dlq.isPending ? "…" : dlqCount >= 500 ? "500+" : dlqCount} unresolved
          </Link>
        </div>
        {pipeline.tags.length > 0 && (
          <div className="pl-meta-item">
            <span className="pl-meta-label">Tags</span>
            <span>
              {pipeline.tags.map((t) => (
                <Link key={t} className="pl-tag" to={`/pipelines?q=${encodeURIComponent(t)}`}>
                  {t}
                </Link>
              ))}
            </span>
          </div>
        )}
        {pipeline.sla_deadline && (
          <div className="pl-meta-item">
            <span className="pl-meta-label">SLA</span>
            <span>
              by {pipeline.sla_deadline} <span className="muted">({pipeline.sla_timezone || "UTC"})</span>
            </span>
          </div>
        )}
        <div className="pl-meta-item">
          <span className="pl-meta-label">Updated</span>
          <Time value={pipeline.updated_at} relative />
        </div>
      </div>
      <ErrorBox error={patch.error} title="Could not change the pipeline" />
      <ErrorBox error={clone.error} title="Could not clone" />
      <ErrorBox error={exportError} title="Could not export" />

      <TriggerDialog pipeline={pipeline} open={triggerOpen} onClose={() => setTriggerOpen(false)} />
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${pipeline.name}?`}
        confirmLabel="Delete pipeline"
        danger
        busy={remove.isPending}
        error={remove.error}
        onClose={() => setConfirmDelete(false)}
        onConfirm={() =>
          remove.mutate({ params: { id: pipeline.id } }, { onSuccess: () => navigate("/pipelines", { replace: true }) })
        }
      >
        <p>
          This deletes <strong>{pipeline.name}</strong>, its versions and its run history. It cannot be undone. Export
          it first if you may want it back.
        </p>
      </ConfirmDialog>
    </>
  );
}
