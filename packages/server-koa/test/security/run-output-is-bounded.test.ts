/**
 * The attacks (found by a helper on 2026-11-27): an editor's pipeline made what the server keeps of a run unbounded,
 * and what it reads back whole with it.
 * - A node's error was kept whole: the node run, the run, a log line and two events each held all of it (and once
 *   more per retry). The code runner's answer was cut at 2,000 characters, but before anything masked it: a secret
 *   across the cut showed its start. Now the run masks every node error, then cuts it.
 * - `code` nodes logging 1,000 lines of 4,000 characters each: 500 of them made 2 GB of run logs, and
 *   `GET /runs/{id}/logs` and its export answered 500 (`RangeError: Invalid string length`).
 * - A `quality` check sending its failing rows to the DLQ put every one in one entry (one of 400 MB: the DLQ list
 *   took 7.4 s).
 * - A dry run went on after its client went away, with nothing to stop it: eight with `while (true) {}` held every
 *   `code` runner of the process for their whole timeout, and the runs queued behind them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LOG_LINE_CHARS,
  LOG_LINE_OVERHEAD,
  NODE_ERROR_CHARS,
  RUN_LOG_CHARS,
} from "../../../core/src/engine/run-log-budget.js";
import { MAX_LOG_LINE_SENT } from "../../../core/src/sandbox/runner-protocol.js";
import { DLQ_ENTRY_CHARS, DLQ_ENTRY_ROWS, DLQ_LIST_CHARS } from "../../../core/src/engine/dlq-payload.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline } from "./attack-support.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
  const created = await t.fetch("/variables", {
    method: "POST",
    json: { key: "CUT", value: CUT_SECRET, type: "secret" },
  });
  expect(created.status).toBe(201);
});
afterAll(async () => t?.close());

interface LogEntry {
  node_id: string | null;
  level: string;
  message: string;
}

const CUT_SECRET = "tok_9f8e7d6c5b4a39281706";

/** What a run's kept lines cost against its budget (`RunLogBudget`). */
const spent = (logs: LogEntry[]) =>
  logs.reduce((sum, l) => sum + l.message.length + (l.node_id?.length ?? 0) + LOG_LINE_OVERHEAD, 0);

const rowsOf = (n: number, text: string) =>
  `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) select i, '${text}' as t from s`;

describe("attack: a run's errors, logs and DLQ entries are bounded", () => {
  it("a code node's huge error is kept cut, in the node run, the run, its logs and its retries", async () => {
    const { run } = await runPipeline(t, {
      name: "huge error",
      nodes: [
        {
          id: "boom",
          type: "code",
          config: { max_retries: 1, retry_delay: 0, code: "throw new Error('E' + 'x'.repeat(5000000));" },
        },
      ],
      edges: [],
    });
    expect(run.status).toBe("failed");
    const nodeError = run.node_runs[0]!.error!;
    expect(nodeError.slice(-20)).toBe("x".repeat(19) + "…");
    expect(nodeError).toMatch(/^code threw Error: Ex+/);
    expect(nodeError.length).toBeLessThanOrEqual(NODE_ERROR_CHARS);
    expect(run.error!.length).toBeLessThan(NODE_ERROR_CHARS + 100);
    const whole = await (await t.fetch(`/runs/${run.id}`)).text();
    expect(whole.length).toBeLessThan(4 * NODE_ERROR_CHARS);
    const logs = (await (await t.fetch(`/runs/${run.id}/logs`)).json()) as LogEntry[];
    expect(logs.some((l) => /retrying/.test(l.message))).toBe(true);
    for (const line of logs) expect(line.message.length).toBeLessThan(NODE_ERROR_CHARS + 100);
  });

  it("a code node's error is masked before it is cut: no start of a secret across the cut", async () => {
    // the secret reaches the code node in a row; "code threw Error: " and 1,970 characters put it across the 2,000th
    // character, where the code runner's answer used to be cut before anything masked it; then padding past the
    // run's own bound
    for (const tail of ["", " + 'p'.repeat(10000)"]) {
      const { run } = await runPipeline(t, {
        name: `secret at the cut${tail ? ", long" : ""}`,
        nodes: [
          { id: "src", type: "sql", config: { sql: "select '${var.CUT}' as s" } },
          { id: "leak", type: "code", config: { code: `throw new Error('x'.repeat(1970) + rows[0].s${tail});` } },
        ],
        edges: [{ from: "src", to: "leak" }],
      });
      const whole = await (await t.fetch(`/runs/${run.id}`)).text();
      const logs = await (await t.fetch(`/runs/${run.id}/logs`)).text();
      expect(run.node_runs.find((n) => n.node_id === "leak")!.error).toContain("********");
      for (const text of [whole, logs]) expect(text).not.toContain(CUT_SECRET.slice(0, 6));
    }
  });

  it("a code node's console line is masked before it is cut, by the run and by the code runner", async () => {
    // the secret reaches the code node in a row
    // across where the code runner cut a line before (4,000), where the run cuts it, where the runner cuts it now
    for (const pad of [3990, LOG_LINE_CHARS - 10, MAX_LOG_LINE_SENT - 10]) {
      const { run } = await runPipeline(t, {
        name: `console line cut at ${pad}`,
        nodes: [
          { id: "src", type: "sql", config: { sql: "select '${var.CUT}' as s" } },
          { id: "say", type: "code", config: { code: `console.log('A'.repeat(${pad}) + rows[0].s); return [];` } },
        ],
        edges: [{ from: "src", to: "say" }],
      });
      expect(run.status).toBe("success");
      const logs = await (await t.fetch(`/runs/${run.id}/logs`)).text();
      const exported = await (await t.fetch(`/runs/${run.id}/logs/export`)).text();
      for (const text of [logs, exported]) expect(text).not.toContain(CUT_SECRET.slice(0, 4));
    }
  });

  it("a run cannot log more than it keeps; the logs and their export still answer", async () => {
    const logging = (id: string) => ({
      id,
      type: "code",
      config: { code: "const line = 'y'.repeat(3500); for (let i = 0; i < 1000; i++) console.log(line); return [];" },
    });
    const { run } = await runPipeline(t, {
      name: "log flood",
      nodes: [logging("a"), logging("b"), logging("c")],
      edges: [],
    });
    expect(run.status).toBe("success");
    const res = await t.fetch(`/runs/${run.id}/logs`);
    expect(res.status).toBe(200);
    const logs = (await res.json()) as LogEntry[];
    expect(spent(logs)).toBeLessThanOrEqual(RUN_LOG_CHARS + 2 * (LOG_LINE_OVERHEAD + 200));
    expect(logs.filter((l) => /^log limit reached/.test(l.message))).toHaveLength(1);
    // 1,000 lines and "completed: 0 rows in … ms; code returned 0 rows" from each node: what was not kept is counted
    const summary = logs.at(-1)!.message;
    expect(summary).toMatch(/log line\(s\) \(\d+ characters\) were dropped/);
    expect(summary).toContain(`${3 * 1001 - (logs.length - 2)} log line(s)`);
    const exported = await t.fetch(`/runs/${run.id}/logs/export`);
    expect(exported.status).toBe(200);
    expect((await exported.text()).length).toBeLessThan(RUN_LOG_CHARS + 1_000_000);
  });

  it("empty lines count too: each line costs its overhead, so a flood of them is bounded as well", async () => {
    const nodes = Array.from({ length: 90 }, (_, i) => ({
      id: `n${i}`,
      type: "code",
      config: { code: "for (let i = 0; i < 1000; i++) console.log(''); return [];" },
    }));
    const { run } = await runPipeline(t, { name: "empty lines", parallelism: 8, nodes, edges: [] });
    expect(run.status).toBe("success");
    const logs = (await (await t.fetch(`/runs/${run.id}/logs`)).json()) as LogEntry[];
    // 1,000 lines and the completion from each node
    expect(logs.length).toBeLessThan(90 * 1001);
    expect(logs.length).toBeLessThanOrEqual(RUN_LOG_CHARS / LOG_LINE_OVERHEAD + 2);
    expect(logs.at(-1)!.message).toContain(`${90 * 1001 - (logs.length - 2)} log line(s)`);
  });

  it("a quality check's failing rows fill one DLQ entry only up to its bounds, and say how many were left out", async () => {
    const cases = [
      { rows: DLQ_ENTRY_ROWS + 2000, text: "z" },
      { rows: 3000, text: "w".repeat(2000) },
    ];
    for (const c of cases) {
      const { pipelineId, run } = await runPipeline(t, {
        name: `dlq ${c.rows}`,
        nodes: [
          { id: "src", type: "sql", config: { sql: rowsOf(c.rows, c.text) } },
          {
            id: "check",
            type: "quality",
            config: { on_failure: "dlq", checks: [{ type: "max", column: "i", max: 0 }] },
          },
        ],
        edges: [{ from: "src", to: "check" }],
      });
      expect(run.status).toBe("success");
      const entries = (await (await t.fetch(`/pipelines/${pipelineId}/dlq`)).json()) as {
        error: string;
        payload: { i: number; t: string }[];
      }[];
      expect(entries).toHaveLength(1);
      const { error, payload } = entries[0]!;
      expect(payload.length).toBeGreaterThan(0);
      expect(payload.length).toBeLessThanOrEqual(DLQ_ENTRY_ROWS);
      expect(JSON.stringify(payload).length).toBeLessThanOrEqual(DLQ_ENTRY_CHARS);
      // the first rows, in order
      expect(payload.slice(0, 3).map((r) => r.i)).toEqual([1, 2, 3]);
      expect(error).toContain(`${c.rows - payload.length} of ${c.rows} rows not kept`);
    }
  });

  it("the DLQ list ends once its entries' payloads reach what one answer holds", async () => {
    // ten entries of about 4 MB each: the default limit (50) would have answered all 40 MB
    const checks = Array.from({ length: 10 }, (_, i) => ({
      id: `q${i}`,
      type: "quality",
      config: { on_failure: "dlq", checks: [{ type: "max", column: "i", max: 0 }] },
    }));
    const { pipelineId, run } = await runPipeline(t, {
      name: "dlq list",
      nodes: [{ id: "src", type: "sql", config: { sql: rowsOf(9000, "v".repeat(400)) } }, ...checks],
      edges: checks.map((c) => ({ from: "src", to: c.id })),
    });
    expect(run.status).toBe("success");
    const res = await t.fetch(`/pipelines/${pipelineId}/dlq`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const entries = JSON.parse(text) as { payload: unknown[] }[];
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThan(10);
    expect(text.length).toBeLessThan(DLQ_LIST_CHARS + DLQ_ENTRY_CHARS);
  });

  it("a cancel ends a node waiting out its retry delay at once", async () => {
    const created = await t.fetch("/pipelines", {
      method: "POST",
      json: {
        name: "retry later",
        nodes: [
          { id: "r", type: "code", config: { code: "throw new Error('not yet');", max_retries: 3, retry_delay: 60 } },
        ],
        edges: [],
      },
    });
    const { id } = (await created.json()) as { id: string };
    const { id: runId } = (await (await t.fetch(`/pipelines/${id}/run`, { method: "POST", json: {} })).json()) as {
      id: string;
    };
    let waiting = false;
    for (let i = 0; i < 100 && !waiting; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const logs = (await (await t.fetch(`/runs/${runId}/logs`)).json()) as LogEntry[];
      waiting = logs.some((l) => /retrying in 60 s/.test(l.message));
    }
    expect(waiting).toBe(true);
    expect((await t.fetch(`/runs/${runId}/cancel`, { method: "POST" })).status).toBeLessThan(300);
    let node = "";
    for (let i = 0; i < 50 && node !== "cancelled"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const run = (await (await t.fetch(`/runs/${runId}`)).json()) as { node_runs: { status: string }[] };
      node = run.node_runs[0]!.status;
    }
    expect(node).toBe("cancelled");
  });

  it("a dry run whose client went away stops, and frees the code runners it held", async () => {
    const created = await t.fetch("/pipelines", {
      method: "POST",
      json: {
        name: "spin",
        nodes: [{ id: "spin", type: "code", config: { timeout: 120, code: "while (true) {}" } }],
        edges: [],
      },
    });
    const { id } = (await created.json()) as { id: string };
    // every runner of the process (the pool holds at most 8), each spinning until its client gives up
    const clients = Array.from({ length: 8 }, () => new AbortController());
    const dryRuns = clients.map((c) =>
      t.fetch(`/pipelines/${id}/dry-run`, { method: "POST", json: {}, signal: c.signal }).catch(() => null),
    );
    await new Promise((r) => setTimeout(r, 1500));
    for (const c of clients) c.abort();
    await Promise.all(dryRuns);
    // a run of a code node gets a runner: it would have waited the dry runs' 120 s timeout
    const { run } = await runPipeline(t, {
      name: "after",
      nodes: [{ id: "ok", type: "code", config: { code: "return [{ done: true }];" } }],
      edges: [],
    });
    expect(run.status).toBe("success");
  });
});
