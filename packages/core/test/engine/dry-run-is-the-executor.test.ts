import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Sluice } from "../../src/index.js";
import type { RunWithNodes } from "../../src/model/run.js";
import { createTestDatabase, tempDir, type TestDatabase } from "../../../../test-support/databases.js";
import { probe } from "./fixture-node-types.js";
import { createTestSluice } from "./test-sluice.js";

// A dry run is the executor itself with effects suppressed: the same timeout, abort and skip logic, no run record,
// no events, and no sink, migration or notification executed.

let db: TestDatabase;
let sluice: Sluice;
let roots: string;
let events = 0;

beforeAll(async () => {
  db = await createTestDatabase("sqlite");
  roots = tempDir("sluice-dry-run-");
  sluice = await createTestSluice(db, { fileRoots: [roots] });
  for (const type of [
    "run.created",
    "run.started",
    "run.completed",
    "run.failed",
    "node.started",
    "node.completed",
    "node.failed",
    "node.skipped",
    "log",
  ] as const) {
    sluice.events.on(type, () => events++);
  }
  await sluice.start();
});
afterAll(async () => {
  await sluice?.close();
  await db?.drop();
  fs.rmSync(roots, { recursive: true, force: true });
});
beforeEach(() => probe.reset());

const src = (id: string, rows: Record<string, unknown>[]) => ({ id, type: "source_file", config: { rows } });

async function pipeline(body: Record<string, unknown>): Promise<string> {
  return (await sluice.pipelines.create({ name: `dry-${Math.random()}`, ...body })).id;
}

async function realRun(pipelineId: string): Promise<RunWithNodes> {
  const { id } = await sluice.runs.trigger(pipelineId);
  for (;;) {
    const run = await sluice.runs.get(id);
    if (run.status === "success" || run.status === "failed" || run.status === "cancelled") return run;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Dry-runs and checks it left nothing behind: no event, no run. */
async function dryRun(pipelineId: string) {
  const eventsBefore = events;
  const runsBefore = (await sluice.runs.listForPipeline(pipelineId)) as unknown[];
  const result = await sluice.runs.dryRun(pipelineId);
  expect(events).toBe(eventsBefore);
  expect(await sluice.runs.listForPipeline(pipelineId)).toHaveLength(runsBefore.length);
  return result;
}

describe("dry-run is the real executor with effects suppressed", () => {
  it("a node that times out is aborted through its signal and stops the nodes after it, as in a real run", async () => {
    const id = await pipeline({
      nodes: [
        src("s", [{ n: 1 }]),
        { id: "slow", type: "code", config: { wait_for_abort: true, timeout: 1 } },
        { id: "after", type: "join", config: {} },
      ],
      edges: [
        { from: "s", to: "slow" },
        { from: "slow", to: "after" },
      ],
    });
    const dry = await dryRun(id);
    expect(probe.aborted.has("slow")).toBe(true);
    expect(probe.calls.get("after")).toBeUndefined();
    expect(dry.s).toMatchObject({ status: "success", rows: [{ n: 1 }] });
    expect(dry.slow).toMatchObject({ status: "failed", error: "timed out after 1 s (attempt 1)", rows: [] });
    expect(dry.after).toEqual({ node_id: "after", name: "after", status: "skipped", columns: [], rows: [] });

    probe.reset();
    const run = await realRun(id);
    expect(run.status).toBe("failed");
    expect(probe.aborted.has("slow")).toBe(true);
    expect(probe.calls.get("after")).toBeUndefined();
    expect(run.node_runs.find((n) => n.node_id === "slow")?.error).toBe(dry.slow?.error);
  });

  it("retries a failing node as a real run does (max_retries)", async () => {
    const id = await pipeline({
      nodes: [src("s", [{ n: 1 }]), { id: "flaky", type: "code", config: { max_retries: 1, retry_delay: 0 } }],
      edges: [{ from: "s", to: "flaky" }],
    });
    probe.failUntil.set("flaky", 1);
    const dry = await dryRun(id);
    expect(dry.flaky).toMatchObject({ status: "success", rows: [{ n: 1 }] });
    expect(probe.calls.get("flaky")).toBe(2);
  });

  it("a false condition skips every node downstream, exactly the nodes a real run skips", async () => {
    const id = await pipeline({
      nodes: [
        src("s", [{ n: 1 }]),
        { id: "gate", type: "condition", config: { pass: false } },
        { id: "below", type: "join", config: {} },
        { id: "further", type: "join", config: {} },
        { id: "beside", type: "join", config: {} },
      ],
      edges: [
        { from: "s", to: "gate" },
        { from: "gate", to: "below" },
        { from: "below", to: "further" },
        { from: "s", to: "beside" },
      ],
    });
    const dry = await dryRun(id);
    const run = await realRun(id);
    expect(run.status).toBe("success");
    const real = Object.fromEntries(run.node_runs.map((n) => [n.node_id, n.status]));
    expect(Object.fromEntries(Object.values(dry).map((d) => [d.node_id, d.status]))).toEqual(real);
    expect(real).toEqual({ s: "success", gate: "success", below: "skipped", further: "skipped", beside: "success" });
  });

  it("sinks and migrations are not executed: no file written, no database touched; their input passes through", async () => {
    const file = path.join(roots, "out.jsonl");
    const dbFile = path.join(roots, "target.db");
    await sluice.connections.create({ conn_id: "target", type: "sqlite", host: dbFile });
    const id = await pipeline({
      nodes: [
        src("s", [{ n: 1 }, { n: 2 }]),
        { id: "ddl", type: "migrate", config: { conn_id: "target", sql: "create table t (n integer)" } },
        { id: "file", type: "sink_file", config: { path: file } },
        { id: "table", type: "sink_db", config: { conn_id: "target", table: "t" } },
        { id: "after", type: "join", config: {} },
      ],
      edges: [
        { from: "s", to: "file" },
        { from: "s", to: "table" },
        { from: "ddl", to: "table" },
        { from: "file", to: "after" },
      ],
    });
    const dry = await dryRun(id);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(dbFile)).toBe(false);
    expect(dry.ddl).toMatchObject({ status: "skipped", rows: [] });
    expect(dry.file).toMatchObject({ status: "skipped", columns: ["n"], rows: [{ n: 1 }, { n: 2 }] });
    expect(dry.table).toMatchObject({ status: "skipped", rows: [{ n: 1 }, { n: 2 }] });
    // the node after a sink sees the sink's input, as it would in a real run
    expect(dry.after).toMatchObject({ status: "success", rows: [{ n: 1 }, { n: 2 }] });

    // the same pipeline run for real does write: the assertions above are about the dry run, not a broken sink
    const run = await realRun(id);
    expect(run.status).toBe("success");
    expect(fs.readFileSync(file, "utf8")).toBe('{"n":1}\n{"n":2}\n');
    const target = new Database(dbFile, { readonly: true });
    try {
      expect(target.prepare("select n from t order by n").all()).toEqual([{ n: 1 }, { n: 2 }]);
    } finally {
      target.close();
    }
  });
});
