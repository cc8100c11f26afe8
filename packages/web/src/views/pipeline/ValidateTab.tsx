import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { useOp } from "../../lib/api";

/** `GET /pipelines/{id}/validate`: the stored pipeline's errors and warnings, checked now. */
export function ValidateTab({ pipelineId }: { pipelineId: string }) {
  const result = useOp("validatePipeline", { params: { id: pipelineId } }, { staleTime: 0 });
  if (result.isPending) return <Loading label="Validating" />;
  const data = result.data;
  return (
    <div className="stack">
      <div className="row">
        {data &&
          (data.valid ? (
            <span className="ok-box pl-inline-box">✓ Valid — the pipeline can run.</span>
          ) : (
            <span className="error-box pl-inline-box">
              ✗ Invalid — {data.errors.length} error{data.errors.length === 1 ? "" : "s"}
            </span>
          ))}
        <button type="button" onClick={() => void result.refetch()} disabled={result.isFetching}>
          {result.isFetching ? "Validating…" : "Validate again"}
        </button>
      </div>
      <ErrorBox error={result.error} title="Could not validate" />
      {data && (
        <>
          <section className="panel">
            <h3>Errors ({data.errors.length})</h3>
            {data.errors.length ? (
              <ul className="pl-issues pl-issues-error">
                {data.errors.map((e, i) => (
                  <li key={i}>{e}</li>
                ))}
              </ul>
            ) : (
              <p className="muted">None.</p>
            )}
          </section>
          <section className="panel">
            <h3>Warnings ({data.warnings.length})</h3>
            {data.warnings.length ? (
              <ul className="pl-issues pl-issues-warning">
                {data.warnings.map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ul>
            ) : (
              <p className="muted">None.</p>
            )}
          </section>
        </>
      )}
    </div>
  );
}
