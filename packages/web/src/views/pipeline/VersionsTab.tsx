import type { Pipeline, PipelineVersion } from "@sluice/client";
import { useMemo, useState } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { Time } from "../../components/Time";
import { useOp, useOpMutation } from "../../lib/api";
import { Can } from "../../lib/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { stableJson } from "./lineDiff";
import { VersionDiff } from "./VersionDiff";

const CURRENT = "current";
/** Fields that are not part of a definition (ids, timestamps, the token that snapshots never hold). */
const NOT_DEFINITION = ["id", "created_at", "updated_at", "webhook_token", "webhook_configured", "version"];

function definitionText(value: unknown): string {
  const record = { ...(value as Record<string, unknown>) };
  for (const k of NOT_DEFINITION) delete record[k];
  return stableJson(record);
}

/**
 * One version's definition (`GET /pipelines/{id}/versions/{version_id}`, its `snapshot`), as diffable text. A
 * version never changes, so it is fetched once; "current" is the pipeline itself and asks nothing.
 */
function useSnapshotText(pipelineId: string, versionId: string | undefined) {
  const version = useOp(
    "getVersion",
    { params: { id: pipelineId, version_id: versionId ?? "" } },
    { enabled: versionId !== undefined && versionId !== CURRENT, staleTime: Infinity },
  );
  const text = useMemo(() => (version.data ? definitionText(version.data.snapshot) : undefined), [version.data]);
  return { text, error: version.error };
}

/** Version history: pick two (or one and the current definition) to see a line diff; roll back to any older one. */
export function VersionsTab({ pipeline }: { pipeline: Pipeline }) {
  const versions = useOp("listVersions", { params: { id: pipeline.id } });
  const list = versions.data ?? [];
  const [from, setFrom] = useState<string | undefined>(undefined);
  const [to, setTo] = useState<string>(CURRENT);
  const fromId = from ?? list[1]?.version_id ?? list[0]?.version_id;
  const [target, setTarget] = useState<PipelineVersion | null>(null);
  const rollback = useOpMutation("rollback", [
    "getPipeline",
    "listVersions",
    "validatePipeline",
    "pipelineSummary",
    "listPipelines",
  ]);

  const a = useSnapshotText(pipeline.id, fromId);
  const b = useSnapshotText(pipeline.id, to);
  const current = definitionText(pipeline);
  const textA = fromId === CURRENT ? current : a.text;
  const textB = to === CURRENT ? current : b.text;
  const snapshotError = a.error ?? b.error;
  const label = (id: string | undefined) =>
    id === CURRENT ? "current definition" : `v${list.find((v) => v.version_id === id)?.version ?? "?"}`;

  if (versions.isPending) return <Loading label="Loading versions" />;
  return (
    <div className="stack">
      <ErrorBox error={versions.error} title="Could not load versions" />
      <div className="panel pl-flush">
        <table aria-label="Versions">
          <thead>
            <tr>
              <th>Version</th>
              <th>Change</th>
              <th>Saved</th>
              <th>Compare from</th>
              <th>Compare to</th>
              <th>
                <span className="pl-sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <tr className="pl-current-row">
              <td>current</td>
              <td className="muted">the definition in use now</td>
              <td>
                <Time value={pipeline.updated_at} />
              </td>
              <td>
                <input
                  type="radio"
                  name="diff-from"
                  aria-label="Compare from the current definition"
                  checked={fromId === CURRENT}
                  onChange={() => setFrom(CURRENT)}
                />
              </td>
              <td>
                <input
                  type="radio"
                  name="diff-to"
                  aria-label="Compare to the current definition"
                  checked={to === CURRENT}
                  onChange={() => setTo(CURRENT)}
                />
              </td>
              <td />
            </tr>
            {list.map((v, i) => (
              <tr key={v.version_id}>
                <td>
                  <strong>v{v.version}</strong>
                  {i === 0 && <span className="muted"> (latest)</span>}
                </td>
                <td>{v.message || <span className="muted">—</span>}</td>
                <td>
                  <Time value={v.created_at} />
                </td>
                <td>
                  <input
                    type="radio"
                    name="diff-from"
                    aria-label={`Compare from v${v.version}`}
                    checked={fromId === v.version_id}
                    onChange={() => setFrom(v.version_id)}
                  />
                </td>
                <td>
                  <input
                    type="radio"
                    name="diff-to"
                    aria-label={`Compare to v${v.version}`}
                    checked={to === v.version_id}
                    onChange={() => setTo(v.version_id)}
                  />
                </td>
                <td>
                  {i > 0 && (
                    <Can op="rollback">
                      <button type="button" onClick={() => setTarget(v)} aria-label={`Rollback to v${v.version}`}>
                        Rollback
                      </button>
                    </Can>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <section className="panel">
        <h3>
          Diff: {label(fromId)} → {label(to)}
        </h3>
        {fromId === to ? (
          <p className="muted">Pick two different versions.</p>
        ) : snapshotError ? (
          <ErrorBox error={snapshotError} title="Could not load a version" />
        ) : textA === undefined || textB === undefined ? (
          <Loading label="Loading versions" />
        ) : (
          <VersionDiff before={textA} after={textB} />
        )}
      </section>

      <ConfirmDialog
        open={target !== null}
        title={`Rollback to v${target?.version ?? ""}?`}
        confirmLabel="Rollback"
        busy={rollback.isPending}
        error={rollback.error}
        onClose={() => {
          setTarget(null);
          rollback.reset();
        }}
        onConfirm={() =>
          target &&
          rollback.mutate(
            { params: { id: pipeline.id }, body: { version_id: target.version_id } },
            { onSuccess: () => setTarget(null) },
          )
        }
      >
        <p>
          The definition of <strong>v{target?.version}</strong> ({target?.message || "no message"}) replaces the current
          one, and is recorded as a new version. The webhook token stays as it is.
        </p>
      </ConfirmDialog>
    </div>
  );
}
