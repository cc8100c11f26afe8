import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import type { NodeRun } from "../../src/model/run.js";
import { eventLogEntry, type EventLogEntry } from "../../src/store/ports.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { nodeRunRow, pendingRun, T0 } from "../../../../test-support/run-fixtures.js";

const dialects = await testDialects();

const t0 = T0;
const run = pendingRun;
const nodeRun = (id: string, runId: string, status: NodeRun["status"]) => nodeRunRow(id, runId, { status });
const logEvent = (runId: string, message: string, origin = "o-a"): EventLogEntry =>
  eventLogEntry(origin, {
    type: "log",
    run_id: runId,
    pipeline_id: "p1",
    node_id: null,
    level: "info",
    message,
    timestamp: t0,
  });

describe.each(dialects)("%s fencing and the event log", (dialect) => {
  let db: TestDatabase;
  let a: KnexStore;
  let b: KnexStore;
  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    a = await createKnexStore(db.url);
    b = await createKnexStore(db.url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  /** Claims exactly run `id` (other tests' pending runs are claimed and failed out of the way). */
  async function claimOnly(store: KnexStore, id: string, owner: string) {
    const claimed = await store.runs.claimPending(owner, 1000, t0);
    const mine = claimed.find((r) => r.id === id);
    if (!mine) throw new Error(`${id} was not claimed`);
    return mine;
  }

  it(`${dialect}: every claim of a run carries a higher epoch`, async () => {
    await a.runs.insert([run("ep-1")]);
    const first = await claimOnly(a, "ep-1", "owner-a");
    await a.runs.failRunsOfOwners(["owner-a"], "interrupted", t0);
    await a.knex("runs").where({ id: "ep-1" }).update({ status: "pending" });
    const second = await claimOnly(b, "ep-1", "owner-b");
    expect(second.epoch).toBeGreaterThan(first.epoch);
    expect(second.owner).toBe("owner-b");
  });

  it(`${dialect}: an owner whose run was taken over has its late writes refused, whole`, async () => {
    await a.runs.insert([run("late-1"), run("kept-1")]);
    const late = await claimOnly(a, "late-1", "stalled");
    await a.knex("runs").where({ id: "kept-1" }).update({ status: "running", owner: "stalled", epoch: 1 });
    // another instance found the owner's heartbeat stale and failed its runs
    await b.runs.failRunsOfOwners(["stalled"], "interrupted", t0);
    await a.knex("runs").where({ id: "kept-1" }).update({ status: "running", owner: "stalled" });
    const claim = { owner: "stalled", epoch: late.epoch };
    const result = await a.runs.writeBatch({
      nodeRuns: [nodeRun("late-nr", "late-1", "success"), nodeRun("kept-nr", "kept-1", "success")],
      logs: [{ run_id: "late-1", node_id: "n1", level: "info", message: "late", timestamp: t0 }],
      outputs: [{ run_id: "late-1", node_id: "n1", kind: "preview", data: { rows: [] } }],
      transitions: [{ id: "late-1", from: ["running"], to: "success", fields: { owner: null }, claim }],
      events: [logEvent("late-1", "late event", "stalled"), logEvent("kept-1", "kept event", "stalled")],
      claims: new Map([
        ["late-1", claim],
        ["kept-1", { owner: "stalled", epoch: 1 }],
      ]),
    });
    expect(result.refused).toEqual(["late-1"]);
    expect(result.moved).toEqual([]);
    expect(result.seqs).toHaveLength(1);
    expect(await a.runs.get("late-1")).toMatchObject({ status: "failed", error: "interrupted" });
    expect((await a.runs.nodeRuns("late-1")).map((n) => n.status)).toEqual([]);
    expect(await a.runs.logs("late-1")).toEqual([]);
    expect(await a.runs.output("late-1", "n1", "preview")).toBeNull();
    expect((await a.eventLog.ofRun("late-1", 0)).map((e) => e.type)).toEqual([]);
    // the run still held under its claim was written
    expect((await a.runs.nodeRuns("kept-1")).map((n) => n.status)).toEqual(["success"]);
    expect((await a.eventLog.ofRun("kept-1", 0)).map((e) => e.seq)).toEqual(result.seqs);
  });

  // PostgreSQL and MySQL only: SQLite has one writer, in process, so a takeover is never half-way through a batch
  const serverDatabase = dialect !== "sqlite";
  if (serverDatabase)
    it(`${dialect}: a batch waiting on a takeover in progress is refused once the takeover commits`, async () => {
      await a.runs.insert([run("race-1")]);
      const claimed = await claimOnly(a, "race-1", "slow-owner");
      const claim = { owner: "slow-owner", epoch: claimed.epoch };
      // another instance takes the run over: its transaction has the row, not yet committed
      const takeover = await b.knex.transaction();
      await takeover("runs")
        .where({ id: "race-1" })
        .update({ owner: "new-owner", epoch: claimed.epoch + 1 });
      const writing = a.runs.writeBatch({
        nodeRuns: [nodeRun("race-nr", "race-1", "success")],
        logs: [{ run_id: "race-1", node_id: "n1", level: "info", message: "late", timestamp: t0 }],
        outputs: [{ run_id: "race-1", node_id: "n1", kind: "preview", data: { rows: [] } }],
        transitions: [
          {
            id: "race-1",
            from: ["running"],
            to: "success",
            fields: { owner: null },
            claim,
            event: eventLogEntry("slow-owner", {
              type: "run.completed",
              run_id: "race-1",
              pipeline_id: "p1",
              status: "success",
              timestamp: t0,
            }),
          },
        ],
        events: [logEvent("race-1", "late event", "slow-owner")],
        claims: new Map([["race-1", claim]]),
      } as never);
      let settled = false;
      void writing.finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(settled).toBe(false); // it waits for the row
      await takeover.commit();
      const result = await writing;
      expect(result).toEqual({ refused: ["race-1"], moved: [], seqs: [] });
      expect(await a.runs.get("race-1")).toMatchObject({ status: "running" });
      expect(await a.runs.nodeRuns("race-1")).toEqual([]);
      expect(await a.runs.logs("race-1")).toEqual([]);
      expect(await a.runs.output("race-1", "n1", "preview")).toBeNull();
      expect(await a.eventLog.ofRun("race-1", 0)).toEqual([]);
    });

  it(`${dialect}: a batch with more bound values than one statement holds is written`, async () => {
    await a.runs.insert([run("many-1")]);
    await a.knex("runs").where({ id: "many-1" }).update({ status: "running" });
    // three groups of 2,500 transitions, four fields each: about 67,000 values
    const fields = { error: null, started_at: t0, finished_at: t0, owner: null };
    const transitions = (["success", "failed", "cancelled"] as const).flatMap((to, g) =>
      Array.from({ length: 2500 }, (_, i) => ({
        id: g === 0 && i === 0 ? "many-1" : `many-${g}-${i}`,
        from: ["running" as const],
        to,
        fields,
      })),
    );
    const result = await a.runs.writeBatch({ nodeRuns: [], logs: [], outputs: [], transitions, events: [] });
    expect(result.moved).toEqual(["many-1"]);
    expect(await a.runs.get("many-1")).toMatchObject({ status: "success" });
  });

  it(`${dialect}: a fenced transition on its own applies only under its claim`, async () => {
    await a.runs.insert([run("ft-1")]);
    const claimed = await claimOnly(a, "ft-1", "owner-ft");
    const stale = { owner: "owner-ft", epoch: claimed.epoch - 1 };
    expect(await a.runs.transition("ft-1", ["running"], "success", { owner: null }, stale)).toBe(false);
    const current = { owner: "owner-ft", epoch: claimed.epoch };
    expect(await a.runs.transition("ft-1", ["running"], "success", { owner: null }, current)).toBe(true);
  });

  it(`${dialect}: the heartbeat stamps only the runs still held, and says which`, async () => {
    await a.runs.insert([run("hb-1"), run("hb-2")]);
    await a.knex("runs").whereIn("id", ["hb-1", "hb-2"]).update({ status: "running", owner: "hb-owner" });
    await a.knex("runs").where({ id: "hb-2" }).update({ owner: "someone-else" });
    expect(await a.runs.heartbeat("hb-owner", ["hb-1", "hb-2"], t0)).toEqual(["hb-1"]);
  });

  it(`${dialect}: events get one increasing sequence across stores; others' are read after a seq, own skipped`, async () => {
    const before = await a.eventLog.lastSeq();
    const fromA = await a.eventLog.append([logEvent("ev-1", "a1", "o-a"), logEvent("ev-1", "a2", "o-a")]);
    const fromB = (
      await b.runs.writeBatch({ nodeRuns: [], logs: [], outputs: [], events: [logEvent("ev-1", "b1", "o-b")] })
    ).seqs;
    expect(fromA[0]).toBeGreaterThan(before);
    expect(fromA[1]).toBeGreaterThan(fromA[0]!);
    expect(fromB[0]).toBeGreaterThan(fromA[1]!);
    expect(await a.eventLog.lastSeq()).toBe(fromB[0]);
    const seenByA = await a.eventLog.after(before, "o-a", 100);
    expect(seenByA.map((e) => [e.seq, e.type === "log" && e.message])).toEqual([[fromB[0], "b1"]]);
    const replay = await b.eventLog.ofRun("ev-1", fromA[0]!);
    expect(replay.map((e) => e.seq)).toEqual([fromA[1], fromB[0]]);
    expect(replay[0]).toMatchObject({ type: "log", run_id: "ev-1", pipeline_id: "p1", message: "a2", timestamp: t0 });
  });

  it(`${dialect}: a large mixed batch is written whole, its events numbered in the order given`, async () => {
    // more rows than one statement takes (PostgreSQL sends a batch as a few combined statements; 200 rows per
    // INSERT): new runs, node runs of a claimed run, logs, outputs, its end and 450 events, under one claim
    const newRuns = Array.from({ length: 250 }, (_, i) => run(`big-new-${i}`));
    await a.runs.insert([run("big-1")]);
    const claimed = await claimOnly(a, "big-1", "owner-big");
    const claim = { owner: "owner-big", epoch: claimed.epoch };
    const events = Array.from({ length: 450 }, (_, i) => logEvent(i % 2 ? "big-1" : "big-new-0", `e${i}`));
    const result = await a.runs.writeBatch({
      runs: newRuns,
      nodeRuns: Array.from({ length: 2500 }, (_, i) => nodeRun(`big-nr-${i}`, "big-1", "success")),
      logs: Array.from({ length: 300 }, (_, i) => ({
        run_id: "big-1",
        node_id: "n1",
        level: "info" as const,
        message: `l${i}`,
        timestamp: t0,
      })),
      outputs: [{ run_id: "big-1", node_id: "n1", kind: "preview", data: { rows: [{ x: 1 }] } }],
      transitions: [{ id: "big-1", from: ["running"], to: "success", fields: { owner: null, finished_at: t0 }, claim }],
      events,
      claims: new Map([["big-1", claim]]),
    });
    expect(result.refused).toEqual([]);
    expect(result.moved).toEqual(["big-1"]);
    expect(result.seqs).toHaveLength(450);
    expect([...result.seqs].sort((x, y) => x - y)).toEqual(result.seqs);
    expect(new Set(result.seqs).size).toBe(450);
    const logged = [...(await a.eventLog.ofRun("big-new-0", 0)), ...(await a.eventLog.ofRun("big-1", 0))];
    const bySeq = new Map(logged.map((e) => [e.seq, e.type === "log" ? e.message : ""]));
    expect(result.seqs.map((seq) => bySeq.get(seq))).toEqual(
      events.map((e) => (e.event as { message: string }).message),
    );
    expect(await a.runs.get("big-1")).toMatchObject({ status: "success", finished_at: t0 });
    expect(await a.runs.nodeRuns("big-1")).toHaveLength(2500);
    expect(await a.runs.logs("big-1")).toHaveLength(300);
    expect(await a.runs.output("big-1", "n1", "preview")).toMatchObject({ rows: [{ x: 1 }] });
    expect(await a.runs.get("big-new-249")).toMatchObject({ status: "pending" });
  });

  it(`${dialect}: a transition's event is logged in its batch, after the batch's events, only if the run moved`, async () => {
    await a.runs.insert([run("te-1")]);
    const claim1 = { owner: "owner-te", epoch: (await claimOnly(a, "te-1", "owner-te")).epoch };
    await a.runs.insert([run("te-2")]);
    const end = (id: string, message: string) => ({
      id,
      from: ["running" as const],
      to: "success" as const,
      fields: { owner: null, finished_at: t0 },
      event: logEvent(id, message, "owner-te"),
    });
    const result = await a.runs.writeBatch({
      nodeRuns: [],
      logs: [],
      outputs: [],
      // te-2 is still pending: its transition does not move it, so its event is not logged
      transitions: [{ ...end("te-1", "te-1 ended"), claim: claim1 }, end("te-2", "te-2 ended")],
      events: [logEvent("te-1", "last line", "owner-te")],
      claims: new Map([["te-1", claim1]]),
    });
    expect(result.moved).toEqual(["te-1"]);
    expect(result.seqs).toHaveLength(2);
    expect(result.seqs[1]).toBeGreaterThan(result.seqs[0]!);
    const logged = await b.eventLog.ofRun("te-1", 0);
    expect(logged.map((e) => [e.seq, e.type === "log" ? e.message : e.type])).toEqual([
      [result.seqs[0], "last line"],
      [result.seqs[1], "te-1 ended"],
    ]);
    expect(await b.eventLog.ofRun("te-2", 0)).toEqual([]);
    expect(await b.runs.get("te-2")).toMatchObject({ status: "pending" });
  });

  it(`${dialect}: a run queued and moved in one batch is inserted first, then moved (two moves of a run, in turn)`, async () => {
    const result = await a.runs.writeBatch({
      runs: [run("qm-1")],
      nodeRuns: [],
      logs: [],
      outputs: [],
      transitions: [
        { id: "qm-1", from: ["pending"], to: "running", fields: { started_at: t0 } },
        { id: "qm-1", from: ["running"], to: "cancelled", fields: { finished_at: t0, error: "stopped" } },
      ],
      events: [],
    });
    expect(result.moved).toEqual(["qm-1", "qm-1"]);
    expect(await a.runs.get("qm-1")).toMatchObject({ status: "cancelled", started_at: t0, error: "stopped" });
  });

  it(`${dialect}: a run queued already claimed is owned at epoch 1: never claimed again, heartbeated, failed with its owner`, async () => {
    const queued = { ...run("qc-1"), status: "running" as const, started_at: t0, owner: "owner-qc" };
    await a.runs.writeBatch({ runs: [queued], nodeRuns: [], logs: [], outputs: [] });
    expect(await a.knex("runs").where({ id: "qc-1" }).first()).toMatchObject({
      status: "running",
      owner: "owner-qc",
      heartbeat_at: t0,
      started_at: t0,
    });
    expect((await b.runs.claimPending("someone-else", 1000, t0)).map((r) => r.id)).not.toContain("qc-1");
    const claim = { owner: "owner-qc", epoch: 1 };
    expect(await a.runs.heartbeat("owner-qc", ["qc-1"], t0)).toEqual(["qc-1"]);
    const kept = await a.runs.writeBatch({
      nodeRuns: [nodeRun("qc-nr", "qc-1", "running")],
      logs: [],
      outputs: [],
      claims: new Map([["qc-1", claim]]),
    });
    expect(kept.refused).toEqual([]);
    expect((await b.runs.failRunsOfOwners(["owner-qc"], "interrupted", t0)).map((r) => r.id)).toEqual(["qc-1"]);
    expect(await a.runs.get("qc-1")).toMatchObject({ status: "failed", error: "interrupted" });
  });

  it(`${dialect}: pruning deletes events written before the cut, in ranges`, async () => {
    await a.eventLog.append(Array.from({ length: 30 }, (_, i) => logEvent("pr-1", `old ${i}`)));
    const cut = new Date(Date.now() + 1000).toISOString();
    await new Promise((r) => setTimeout(r, 1100));
    const [kept] = await a.eventLog.append([logEvent("pr-1", "new")]);
    expect(await a.eventLog.prune(cut)).toBeGreaterThanOrEqual(30);
    expect((await a.eventLog.ofRun("pr-1", 0)).map((e) => e.seq)).toEqual([kept]);
  });

  it(`${dialect}: pruning keeps every event when none is old, and deletes them all when all are`, async () => {
    const seqs = await a.eventLog.append(Array.from({ length: 3 }, (_, i) => logEvent("pr-2", `event ${i}`)));
    expect(await a.eventLog.prune("2000-01-01T00:00:00.000Z")).toBe(0);
    expect((await a.eventLog.ofRun("pr-2", 0)).map((e) => e.seq)).toEqual(seqs);

    const cut = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    expect(await a.eventLog.prune(cut)).toBeGreaterThanOrEqual(3);
    expect(await a.eventLog.ofRun("pr-2", 0)).toEqual([]);
    // the log numbers on from where it was: an event appended after the purge is kept, and a reader resumes there
    const [next] = await a.eventLog.append([logEvent("pr-2", "after")]);
    expect(next).toBeGreaterThan(seqs.at(-1)!);
    expect((await b.eventLog.after(seqs.at(-1)!, "o-b", 10)).map((e) => e.seq)).toEqual([next]);
  });
});
