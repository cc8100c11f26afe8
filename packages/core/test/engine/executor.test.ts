import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Sluice, SluiceEvent } from "../../src/index.js";
import type { RunWithNodes } from "../../src/model/run.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { probe } from "./fixture-node-types.js";
import { createTestSluice, runEnded } from "./test-sluice.js";

let db: TestDatabase;
let sluice: Sluice;
const events: SluiceEvent[] = [];

beforeAll(async () => {
  db = await createTestDatabase("sqlite");
  sluice = await createTestSluice(db);
  for (const type of [
    "run.created",
    "run.started",
    "run.completed",
    "run.failed",
    "run.cancelled",
    "node.started",
    "node.completed",
    "node.failed",
    "node.retrying",
    "node.skipped",
  ] as const) {
    sluice.events.on(type, (e: object) => events.push({ ...e, type } as SluiceEvent));
  }
  await sluice.start();
});
afterAll(async () => {
  await sluice?.close();
  await db?.drop();
});
beforeEach(() => probe.reset());

const src = (id: string, rows: Record<string, unknown>[]) => ({ id, type: "source_file", config: { rows } });

async function pipeline(body: Record<string, unknown>): Promise<string> {
  return (await sluice.pipelines.create({ name: `p-${Math.random()}`, ...body })).id;
}

const terminal = (runId: string): Promise<RunWithNodes> => runEnded(sluice, runId);

const nodeRun = (run: RunWithNodes, nodeId: string) => run.node_runs.find((n) => n.node_id === nodeId);

describe("executor", () => {
  it("runs waves, feeds inputs in edge order, records node runs, preview and profile", async () => {
    const id = await pipeline({
      nodes: [src("a", [{ v: 1, s: "x" }]), src("b", [{ v: 2, s: null }]), { id: "j", type: "join", config: {} }],
      edges: [
        { from: "b", to: "j" },
        { from: "a", to: "j" },
      ],
    });
    const queued = await sluice.runs.trigger(id);
    expect(queued.status).toBe("pending");
    const run = await terminal(queued.id);
    expect(run.status).toBe("success");
    expect(run.started_at).not.toBeNull();
    expect(run.finished_at).not.toBeNull();
    expect(run.node_runs.map((n) => [n.node_id, n.status, n.row_count, n.attempt]).sort()).toEqual([
      ["a", "success", 1, 1],
      ["b", "success", 1, 1],
      ["j", "success", 2, 1],
    ]);
    expect(await sluice.runs.preview(run.id, "j")).toEqual({
      node_id: "j",
      columns: ["v", "s"],
      rows: [
        { v: 2, s: null },
        { v: 1, s: "x" },
      ],
    });
    const profile = await sluice.runs.profile(run.id, "j");
    expect(profile).toMatchObject({ node_id: "j", row_count: 2 });
    expect(profile.columns.find((c) => c.name === "v")).toMatchObject({
      type: "integer",
      min: 1,
      max: 2,
      mean: 1.5,
      null_count: 0,
      distinct_count: 2,
    });
    expect(profile.columns.find((c) => c.name === "s")).toMatchObject({ null_count: 1, null_pct: 50 });
    const logs = await sluice.runs.logs(run.id, { node_id: "j" });
    expect(logs.map((l) => l.message)).toContain("inputs from b,a");
    const types = events.filter((e) => "run_id" in e && e.run_id === run.id).map((e) => e.type);
    expect(types[0]).toBe("run.created");
    expect(types).toContain("run.started");
    expect(types.at(-1)).toBe("run.completed");
    expect(types.filter((t) => t === "node.completed")).toHaveLength(3);
  });

  it("limits node concurrency within a wave to the pipeline parallelism, else 4", async () => {
    const nodes = Array.from({ length: 6 }, (_, i) => ({
      id: `c${i}`,
      type: "code",
      config: { code: "x", sleep_ms: 40 },
    }));
    const limited = await pipeline({ nodes, parallelism: 2 });
    expect((await terminal((await sluice.runs.trigger(limited)).id)).status).toBe("success");
    expect(probe.maxRunning).toBe(2);
    probe.reset();
    const byDefault = await pipeline({ nodes });
    expect((await terminal((await sluice.runs.trigger(byDefault)).id)).status).toBe("success");
    expect(probe.maxRunning).toBe(4);
  });

  it("retries with exponential delays, logging every attempt", async () => {
    const id = await pipeline({
      nodes: [{ id: "flaky", type: "code", config: { code: "x", max_retries: 2, retry_delay: 0.05 } }],
    });
    probe.failUntil.set("flaky", 2);
    const run = await terminal((await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("success");
    expect(nodeRun(run, "flaky")).toMatchObject({ status: "success", attempt: 3 });
    const messages = (await sluice.runs.logs(run.id, { node_id: "flaky" })).map((l) => l.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        "attempt 1/3 started",
        "attempt 1/3 failed: planned failure 1; retrying in 0.05 s",
        "attempt 2/3 failed: planned failure 2; retrying in 0.1 s",
        "attempt 3/3 started",
      ]),
    );
    expect(events.filter((e) => e.type === "node.retrying" && e.run_id === run.id)).toHaveLength(2);
  });

  it("a node with one attempt logs no start line: its start is node.started and the node run's started_at", async () => {
    const id = await pipeline({ nodes: [{ id: "once", type: "code", config: { code: "x" } }] });
    const run = await terminal((await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("success");
    const messages = (await sluice.runs.logs(run.id, { node_id: "once" })).map((l) => l.message);
    expect(messages.some((m) => m.startsWith("attempt"))).toBe(false);
    expect(messages.filter((m) => m.startsWith("completed: "))).toHaveLength(1);
    expect(nodeRun(run, "once")).toMatchObject({ status: "success", attempt: 1 });
    expect(nodeRun(run, "once")?.started_at).toEqual(expect.any(String));
    expect(events.filter((e) => e.type === "node.started" && e.run_id === run.id)).toHaveLength(1);
  });

  it("a node that fails for good fails the run, writes a DLQ entry with its input sample, starts nothing downstream", async () => {
    const id = await pipeline({
      nodes: [
        src("in", [{ k: 1 }, { k: 2 }]),
        { id: "bad", type: "code", name: "Bad", max_retries: 1, retry_delay: 0, config: { code: "x" } },
        { id: "after", type: "code", config: { code: "x" } },
      ],
      edges: [
        { from: "in", to: "bad" },
        { from: "bad", to: "after" },
      ],
    });
    probe.failUntil.set("bad", 99);
    const run = await terminal((await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("node 'bad' failed: planned failure 2");
    expect(nodeRun(run, "bad")).toMatchObject({ status: "failed", attempt: 2, error: "planned failure 2" });
    expect(nodeRun(run, "after")?.status).toBe("pending");
    expect(probe.calls.get("after")).toBeUndefined();
    const dlq = await sluice.runs.dlqList(id);
    expect(dlq).toHaveLength(1);
    expect(dlq[0]).toMatchObject({
      run_id: run.id,
      node_id: "bad",
      node_name: "Bad",
      error: "planned failure 2",
      payload: [{ k: 1 }, { k: 2 }],
      resolved: false,
    });
    expect(await sluice.runs.dlqResolve(id, dlq[0]!.id)).toEqual({ id: dlq[0]!.id, status: "resolved" });
    expect(await sluice.runs.dlqList(id)).toEqual([]);
    expect(await sluice.runs.dlqList(id, { include_resolved: true })).toHaveLength(1);
  });

  it("aborts a timed-out attempt through its signal", async () => {
    const id = await pipeline({
      nodes: [{ id: "hang", type: "code", config: { code: "x", timeout: 1, wait_for_abort: true } }],
    });
    const run = await terminal((await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("failed");
    expect(nodeRun(run, "hang")?.error).toBe("timed out after 1 s (attempt 1)");
    expect(probe.aborted.has("hang")).toBe(true);
  });

  it("times out an attempt whose node never reads its signal", async () => {
    const id = await pipeline({ nodes: [{ id: "deaf", type: "code", config: { code: "x", timeout: 1, hang: true } }] });
    const run = await terminal((await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("failed");
    expect(nodeRun(run, "deaf")?.error).toBe("timed out after 1 s (attempt 1)");
  });

  it("times out an attempt that held the thread past its deadline, though its timer could not fire before it ended", async () => {
    const id = await pipeline({
      nodes: [{ id: "busy", type: "code", config: { code: "x", timeout: 1, busy_ms: 1200 } }],
    });
    const run = await terminal((await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("failed");
    expect(nodeRun(run, "busy")?.error).toBe("timed out after 1 s (attempt 1)");
  });

  it("a cancel stops a node that never reads its signal; one that reads it after the cancel finds it aborted", async () => {
    const id = await pipeline({
      nodes: [
        { id: "deaf", type: "code", config: { code: "x", hang: true } },
        { id: "late", type: "code", config: { code: "x", read_signal_after_gate: true } },
      ],
    });
    const queued = await sluice.runs.trigger(id);
    const both = (status: string) => async () => {
      const r = await sluice.runs.get(queued.id);
      expect([nodeRun(r, "deaf")?.status, nodeRun(r, "late")?.status]).toEqual([status, status]);
      return r;
    };
    await vi.waitFor(both("running"), { timeout: 10_000, interval: 5 });
    await sluice.runs.cancel(queued.id);
    const run = await vi.waitFor(both("cancelled"), { timeout: 10_000, interval: 10 });
    expect(run.status).toBe("cancelled");
    expect(nodeRun(run, "deaf")?.error).toBe("the run was cancelled");
    expect(nodeRun(run, "late")?.error).toBe("the run was cancelled");
    probe.openGate();
    await vi.waitFor(() =>
      expect(probe.signalRead.get("late")).toEqual({ aborted: true, reason: "the run was cancelled" }),
    );
  });

  it("condition false skips every downstream node and the run still succeeds", async () => {
    const id = await pipeline({
      nodes: [
        src("s", [{ a: 1 }]),
        { id: "cond", type: "condition", config: { pass: false } },
        { id: "d1", type: "code", config: { code: "x" } },
        { id: "d2", type: "code", config: { code: "x" } },
        { id: "other", type: "code", config: { code: "x" } },
      ],
      edges: [
        { from: "s", to: "cond" },
        { from: "cond", to: "d1" },
        { from: "d1", to: "d2" },
        { from: "s", to: "other" },
      ],
    });
    const run = await terminal((await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("success");
    expect(nodeRun(run, "d1")?.status).toBe("skipped");
    expect(nodeRun(run, "d2")?.status).toBe("skipped");
    expect(nodeRun(run, "other")?.status).toBe("success");
    expect(events.filter((e) => e.type === "node.skipped" && e.run_id === run.id)).toHaveLength(2);
  });

  it("cancel: the executing node is stopped and ends cancelled, no new node starts; a finished run cannot be cancelled (409)", async () => {
    const id = await pipeline({
      nodes: [
        // long enough that the poll below cannot miss it running: the cancel ends it
        { id: "slow", type: "code", config: { code: "x", sleep_ms: 30_000 } },
        { id: "next", type: "code", config: { code: "x" } },
      ],
      edges: [{ from: "slow", to: "next" }],
    });
    const queued = await sluice.runs.trigger(id);
    while ((await sluice.runs.get(queued.id)).node_runs.find((n) => n.node_id === "slow")?.status !== "running") {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await sluice.runs.cancel(queued.id)).toEqual({ id: queued.id, status: "cancelled" });
    for (;;) {
      const r = await sluice.runs.get(queued.id);
      if (nodeRun(r, "next")?.status === "cancelled") break;
      await new Promise((res) => setTimeout(res, 10));
    }
    const run = await sluice.runs.get(queued.id);
    expect(run.status).toBe("cancelled");
    expect(nodeRun(run, "slow")).toMatchObject({ status: "cancelled", error: "the run was cancelled" });
    expect(probe.calls.get("next")).toBeUndefined();
    await expect(sluice.runs.cancel(queued.id)).rejects.toMatchObject({ code: "conflict" });
    await expect(sluice.runs.resume(queued.id)).rejects.toMatchObject({ code: "bad_request" });
  });

  it("a cancel made through another instance sharing the database stops new nodes here within a second", async () => {
    const other = await createTestSluice(db);
    try {
      const id = await pipeline({
        nodes: [
          // far longer than the other instance's cancel takes to be noticed here (a poll a second), on a busy machine
          { id: "slow", type: "code", config: { code: "x", sleep_ms: 10_000 } },
          { id: "next", type: "code", config: { code: "x" } },
        ],
        edges: [{ from: "slow", to: "next" }],
      });
      const queued = await sluice.runs.trigger(id);
      while ((await sluice.runs.get(queued.id)).node_runs.find((n) => n.node_id === "slow")?.status !== "running") {
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(await other.runs.cancel(queued.id)).toEqual({ id: queued.id, status: "cancelled" });
      const run = await terminal(queued.id);
      expect(run.status).toBe("cancelled");
      // the executing node is stopped; then `next` is settled one way or the other
      let next = nodeRun(run, "next")?.status;
      while (next === undefined || next === "pending" || next === "running") {
        await new Promise((res) => setTimeout(res, 20));
        next = nodeRun(await sluice.runs.get(queued.id), "next")?.status;
      }
      expect(next).toBe("cancelled");
      expect(probe.calls.get("next")).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it("resume re-runs the failed node only and feeds the persisted output of the succeeded side of a join", async () => {
    const id = await pipeline({
      nodes: [
        src("left", [{ side: "L" }]),
        src("right_src", [{ side: "R" }]),
        { id: "right", type: "code", config: { code: "x" } },
        { id: "j", type: "join", config: {} },
      ],
      edges: [
        { from: "left", to: "j" },
        { from: "right_src", to: "right" },
        { from: "right", to: "j" },
      ],
    });
    probe.failUntil.set("right", 1);
    const first = await terminal((await sluice.runs.trigger(id)).id);
    expect(first.status).toBe("failed");
    expect(await sluice.runs.resume(first.id)).toEqual({ id: first.id, status: "pending" });
    const resumed = await terminal(first.id);
    expect(resumed.status).toBe("success");
    expect(probe.calls.get("left")).toBe(1);
    expect(probe.calls.get("right")).toBe(2);
    expect((await sluice.runs.preview(first.id, "j")).rows).toEqual([{ side: "L" }, { side: "R" }]);
    expect(resumed.node_runs).toHaveLength(4);
  });

  it("an invalid graph is refused with 422 and its errors; unknown pipeline 404", async () => {
    const id = await pipeline({ nodes: [{ id: "x", type: "condition", config: {} }] });
    await expect(sluice.runs.trigger(id)).rejects.toMatchObject({
      code: "unprocessable",
      extra: { errors: [expect.stringContaining("node 'x'")] },
    });
    await expect(sluice.runs.trigger("nope")).rejects.toMatchObject({ code: "not_found" });
  });

  it("a trigger validates the pipeline as it is now: an update that breaks it is refused, fixing it runs again", async () => {
    const good = src("x", [{ a: 1 }]);
    const id = await pipeline({ nodes: [good] });
    expect((await terminal((await sluice.runs.trigger(id)).id)).status).toBe("success");
    await sluice.pipelines.update(id, { nodes: [{ id: "x", type: "condition", config: {} }] });
    await expect(sluice.runs.trigger(id)).rejects.toMatchObject({ code: "unprocessable" });
    await sluice.pipelines.update(id, { nodes: [good] });
    expect((await terminal((await sluice.runs.trigger(id)).id)).status).toBe("success");
  });

  it("backfill queues one run per date with the date param; dry run stores nothing", async () => {
    const id = await pipeline({ nodes: [src("s", [{ a: 1 }])], params: { region: "eu" } });
    const ids = await sluice.runs.backfill(id, { start_date: "2026-02-27", end_date: "2026-03-02" });
    expect(ids).toHaveLength(4);
    const runs = await Promise.all(ids.map(terminal));
    expect(runs.map((r) => r.params)).toEqual(
      ["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"].map((date) => ({ region: "eu", date })),
    );
    expect(runs.every((r) => r.trigger === "backfill" && r.status === "success")).toBe(true);
    await expect(sluice.runs.backfill(id, { start_date: "2026-03-02", end_date: "2026-03-01" })).rejects.toMatchObject({
      code: "bad_request",
    });
    await expect(sluice.runs.backfill(id, { start_date: "2025-01-01", end_date: "2026-01-02" })).rejects.toMatchObject({
      code: "bad_request",
    });

    const before = events.length;
    const dry = await sluice.runs.dryRun(id);
    expect(dry).toEqual({ s: { node_id: "s", name: "s", status: "success", columns: ["a"], rows: [{ a: 1 }] } });
    expect(events.length).toBe(before);
    expect(await sluice.runs.listForPipeline(id)).toHaveLength(4);
  });
});
