import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

describe("GET /metrics", () => {
  it("serves Prometheus text with run, node, queue and HTTP metrics", async () => {
    await t.fetch("/pipelines");
    const ts = new Date().toISOString();
    t.sluice.events.emit("run.completed", {
      run_id: "r",
      pipeline_id: "p",
      status: "success",
      duration_ms: 1500,
      timestamp: ts,
    });
    t.sluice.events.emit("run.failed", {
      run_id: "r2",
      pipeline_id: "p",
      status: "failed",
      duration_ms: 20,
      timestamp: ts,
    });
    t.sluice.events.emit("node.completed", {
      run_id: "r",
      pipeline_id: "p",
      node_id: "n",
      status: "success",
      row_count: 3,
      duration_ms: 7,
      timestamp: ts,
    });
    const res = await fetch(`${t.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^sluice_runs_total\{status="success"\} 1$/m);
    expect(text).toMatch(/^sluice_runs_total\{status="failed"\} 1$/m);
    expect(text).toMatch(/^sluice_run_duration_seconds_sum\{status="success"\} 1.5$/m);
    expect(text).toMatch(/^sluice_node_runs_total\{status="success"\} 1$/m);
    expect(text).toMatch(/^sluice_active_runs 0$/m);
    expect(text).toMatch(/^sluice_queue_depth 0$/m);
    expect(text).toMatch(
      /^sluice_http_request_duration_seconds_count\{method="GET",route="\/api\/pipelines",status="200"\} 1$/m,
    );
    expect((await t.fetch("/metrics")).status).toBe(200);
  });
});
