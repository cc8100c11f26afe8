import { Link } from "react-router";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { useOp } from "../../lib/api";

const pipelineLink = (id: string, name: string | null) =>
  name === null ? (
    <span className="muted" title={id}>
      deleted pipeline {id.slice(-8)}
    </span>
  ) : (
    <Link to={`/pipelines/${encodeURIComponent(id)}`}>{name}</Link>
  );

/** Upstream (`depends_on`, with whether each is satisfied now) and downstream impact (depends_on and shared tables). */
export function DepsTab({ pipelineId }: { pipelineId: string }) {
  const deps = useOp("dependencies", { params: { id: pipelineId } });
  const impact = useOp("impact", { params: { id: pipelineId } });
  const satisfied = deps.data?.every((d) => d.satisfied) ?? true;
  const names = new Map(impact.data?.downstream.map((d) => [d.pipeline_id, d.name]));
  return (
    <div className="stack">
      <section className="panel">
        <h3>Depends on</h3>
        <p className="muted pl-help">
          A scheduled run starts only when every dependency's latest run succeeded; otherwise it is skipped.
        </p>
        <ErrorBox error={deps.error} title="Could not load dependencies" />
        {deps.isPending ? (
          <Loading />
        ) : deps.data && deps.data.length === 0 ? (
          <p className="muted">No dependencies.</p>
        ) : deps.data ? (
          <>
            <p>
              {satisfied ? (
                <span className="status status-success">all satisfied</span>
              ) : (
                <span className="status status-failed">not satisfied</span>
              )}{" "}
              <span className="muted">— the next scheduled run {satisfied ? "will run" : "would be skipped"}</span>
            </p>
            <table aria-label="Dependencies">
              <thead>
                <tr>
                  <th>Pipeline</th>
                  <th>Latest run</th>
                  <th>Satisfied</th>
                </tr>
              </thead>
              <tbody>
                {deps.data.map((d) => (
                  <tr key={d.pipeline_id}>
                    <td>{pipelineLink(d.pipeline_id, d.name)}</td>
                    <td>
                      <StatusBadge status={d.last_status} />
                    </td>
                    <td>{d.satisfied ? "✓ yes" : "✗ no"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
      </section>
      <section className="panel">
        <h3>Impact (downstream)</h3>
        <p className="muted pl-help">
          Pipelines that depend on this one, directly or transitively, or read tables it writes.
        </p>
        <ErrorBox error={impact.error} title="Could not load impact" />
        {impact.isPending ? (
          <Loading />
        ) : impact.data && impact.data.downstream.length === 0 ? (
          <p className="muted">Nothing downstream.</p>
        ) : impact.data ? (
          <table aria-label="Downstream impact">
            <thead>
              <tr>
                <th>Pipeline</th>
                <th className="num">Depth</th>
                <th>Via</th>
                <th>Through</th>
              </tr>
            </thead>
            <tbody>
              {impact.data.downstream.map((d) => (
                <tr key={`${d.pipeline_id}-${d.via}-${d.detail}`}>
                  <td>{pipelineLink(d.pipeline_id, d.name)}</td>
                  <td className="num">{d.depth}</td>
                  <td>{d.via === "depends_on" ? "depends on" : "shared table"}</td>
                  <td>
                    {d.via === "table" ? (
                      <code>{d.detail}</code>
                    ) : d.detail === pipelineId ? (
                      "this pipeline"
                    ) : (
                      (names.get(d.detail) ?? d.detail)
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </div>
  );
}
