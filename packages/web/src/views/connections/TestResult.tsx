import type { ConnectionTestResult } from "@sluice/client";

/** The answer of POST /connections/{id}/test, inline under the connection. */
export function TestResult({ result, ms }: { result: ConnectionTestResult; ms: number | null }) {
  const took = ms === null ? null : <span className="muted"> · {ms} ms round trip</span>;
  if (result.success) {
    return (
      <div className="ok-box" role="status" style={{ margin: 0 }}>
        <strong>✓ Connection OK</strong>
        {result.message && <> — {result.message}</>}
        {result.driver && <span className="muted"> (driver: {result.driver})</span>}
        {took}
      </div>
    );
  }
  return (
    <div className="error-box" role="alert" style={{ margin: 0 }}>
      <strong>✗ Test failed</strong>
      {(result.error ?? result.message) && <> — {result.error ?? result.message}</>}
      {took}
    </div>
  );
}
