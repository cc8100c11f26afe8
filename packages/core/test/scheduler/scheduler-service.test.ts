import type { Knex } from "knex";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSluice, storeOf, type Sluice } from "../../src/service/create-sluice.js";
import { silentLogger } from "../../src/logger.js";
import type { RunStatus } from "../../src/model/run.js";
import { SchedulerService } from "../../src/scheduler/scheduler-service.js";
import { realTimers, type SchedulerRunsPort, type Timers } from "../../src/scheduler/ports.js";
import { SluiceEvents } from "../../src/events.js";
import type { Store } from "../../src/store/ports.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { holdOf } from "../engine/nodes/event-loop-hold.js";
import { queriesSent } from "../../../../test-support/queries-sent.js";

class FakeClock {
  constructor(public current: Date) {}
  now = () => new Date(this.current);
  set(iso: string) {
    this.current = new Date(iso);
  }
}

/** Timers that never fire by themselves: tests advance the clock and call tick(). */
const manualTimers: Timers = { setTimeout: () => ({}), clearTimeout: () => undefined };

/** An in-memory run ledger standing in for the run queue (the port's contract, not a driver). */
class RunLedger implements SchedulerRunsPort {
  runs: {
    id: string;
    pipeline_id: string;
    trigger: string;
    status: RunStatus;
    created_at: string;
    finished_at: string | null;
  }[] = [];
  constructor(
    private clock: FakeClock,
    private store: Store,
  ) {}
  /** Claims the slot in the real store, as the real port does in the run's transaction. */
  async triggerSlot(pipelineId: string, trigger: "schedule" | "catchup", slotIso: string) {
    if (!(await this.store.schedulerState.claimSlot(pipelineId, slotIso))) return null;
    const id = `run-${this.runs.length + 1}`;
    this.runs.push({
      id,
      pipeline_id: pipelineId,
      trigger,
      status: "pending",
      created_at: this.clock.now().toISOString(),
      finished_at: null,
    });
    return { id };
  }
  async latestRun(pipelineId: string) {
    return this.runs.filter((r) => r.pipeline_id === pipelineId).at(-1) ?? null;
  }
  async lastSuccessFinishedAt(pipelineId: string) {
    return this.runs.filter((r) => r.pipeline_id === pipelineId && r.status === "success").at(-1)?.finished_at ?? null;
  }
  of(pipelineId: string) {
    return this.runs.filter((r) => r.pipeline_id === pipelineId);
  }
}

/**
 * Resolves once the scheduler leader has reloaded its schedules from `knex` and looked at the change marker again
 * after that (its next sync starts once a reload is done): it reads schedules, then the marker.
 */
function reloaded(knex: Knex): Promise<void> {
  return new Promise((resolve, reject) => {
    let read = false;
    const listener = ({ sql }: { sql: string }) => {
      if (/schedule_timezone/.test(sql)) read = true;
      else if (read && /max\(.updated_at/.test(sql)) done(null);
    };
    const timer = setTimeout(() => done(new Error("the leader did not reload within 10 s")), 10_000);
    const done = (e: Error | null) => {
      clearTimeout(timer);
      knex.off("query", listener);
      if (e) reject(e);
      else resolve();
    };
    knex.on("query", listener);
  });
}

let db: TestDatabase;
let sluice: Sluice;
let clock: FakeClock;
let ledger: RunLedger;
let scheduler: SchedulerService;

function makeScheduler() {
  return new SchedulerService({
    store: storeOf(sluice),
    events: sluice.events,
    clock,
    logger: silentLogger,
    runs: ledger,
    timers: manualTimers,
  });
}

beforeEach(async () => {
  db = await createTestDatabase("sqlite");
  clock = new FakeClock(new Date("2026-11-22T09:58:00Z"));
  sluice = await createSluice({ database: db.url, clock, logger: silentLogger });
  ledger = new RunLedger(clock, storeOf(sluice));
  scheduler = makeScheduler();
});
afterEach(async () => {
  await scheduler.stop();
  await sluice.close();
  await db.drop();
});

describe("scheduler with a fake clock", () => {
  it("fires each slot once with trigger 'schedule'", async () => {
    const p = await sluice.pipelines.create({ name: "every minute", schedule: "* * * * *" });
    await scheduler.start();
    expect(scheduler.isLeader()).toBe(true);
    clock.set("2026-11-22T09:59:00.500Z");
    await scheduler.tick();
    await scheduler.tick();
    expect(ledger.of(p.id).map((r) => r.trigger)).toEqual(["schedule"]);
    clock.set("2026-11-22T10:00:00Z");
    await scheduler.tick();
    expect(ledger.of(p.id)).toHaveLength(2);
  });

  it("registers new, changed, disabled and deleted pipelines immediately", async () => {
    await scheduler.start();
    const p = await sluice.pipelines.create({ name: "hourly", schedule: "0 * * * *" });
    await new Promise((r) => setTimeout(r, 20));
    let status = await scheduler.status();
    expect(status).toEqual([
      {
        pipeline_id: p.id,
        pipeline_name: "hourly",
        schedule: "0 * * * *",
        timezone: "UTC",
        enabled: true,
        next_run: "2026-11-22T10:00:00.000Z",
        last_run: null,
      },
    ]);
    await sluice.pipelines.update(p.id, { enabled: false });
    await new Promise((r) => setTimeout(r, 20));
    clock.set("2026-11-22T10:00:01Z");
    await scheduler.tick();
    expect(ledger.of(p.id)).toHaveLength(0);
    status = await scheduler.status();
    expect(status[0]).toMatchObject({ enabled: false, next_run: null });
    await sluice.pipelines.update(p.id, { enabled: true, schedule: "30 * * * *" });
    await new Promise((r) => setTimeout(r, 20));
    clock.set("2026-11-22T10:30:00Z");
    await scheduler.tick();
    expect(ledger.of(p.id)).toHaveLength(1);
    await sluice.pipelines.delete(p.id);
    await new Promise((r) => setTimeout(r, 20));
    clock.set("2026-11-22T11:30:00Z");
    await scheduler.tick();
    expect(ledger.of(p.id)).toHaveLength(1);
  });

  it("runs in the pipeline's time zone", async () => {
    const p = await sluice.pipelines.create({
      name: "berlin",
      schedule: "0 11 * * *",
      schedule_timezone: "Europe/Berlin",
    });
    await scheduler.start();
    clock.set("2026-11-22T10:00:00Z"); // 11:00 CET
    await scheduler.tick();
    expect(ledger.of(p.id)).toHaveLength(1);
  });

  it("skips a scheduled run while a dependency's latest run is not success, and says which", async () => {
    const upstream = await sluice.pipelines.create({ name: "upstream" });
    const p = await sluice.pipelines.create({ name: "downstream", schedule: "* * * * *", depends_on: [upstream.id] });
    const skipped: { blocked_by?: string[] }[] = [];
    sluice.events.on("schedule.skipped", (e) => skipped.push(e));
    await scheduler.start();
    clock.set("2026-11-22T09:59:00Z");
    await scheduler.tick();
    expect(ledger.of(p.id)).toHaveLength(0);
    expect(skipped[0]?.blocked_by).toEqual([upstream.id]);
    ledger.runs.push({
      id: "u1",
      pipeline_id: upstream.id,
      trigger: "manual",
      status: "success",
      created_at: clock.now().toISOString(),
      finished_at: clock.now().toISOString(),
    });
    clock.set("2026-11-22T10:00:00Z");
    await scheduler.tick();
    expect(ledger.of(p.id)).toHaveLength(1);
  });

  it("catches up one missed slot younger than 24 h at start, before the cron loop", async () => {
    clock.set("2026-11-20T00:00:00Z");
    const p = await sluice.pipelines.create({ name: "daily", schedule: "0 6 * * *" });
    const old = await sluice.pipelines.create({ name: "weekly", schedule: "0 6 * * 1" });
    clock.set("2026-11-22T09:58:00Z");
    await scheduler.start();
    expect(ledger.of(p.id).map((r) => r.trigger)).toEqual(["catchup"]);
    expect(ledger.of(old.id)).toHaveLength(0); // Monday 2026-11-16 06:00 is more than 24 h ago
    await scheduler.stop();
    scheduler = makeScheduler();
    await scheduler.start(); // a second restart does not catch up the same slot again
    expect(ledger.of(p.id)).toHaveLength(1);
  });

  it("only one of two instances sharing the database schedules, and a slot fires once", async () => {
    const p = await sluice.pipelines.create({ name: "shared", schedule: "* * * * *" });
    const other = makeScheduler();
    await scheduler.start();
    await other.start();
    expect([scheduler.isLeader(), other.isLeader()]).toEqual([true, false]);
    clock.set("2026-11-22T09:59:00Z");
    await Promise.all([scheduler.tick(), other.tick()]);
    expect(ledger.of(p.id)).toHaveLength(1);
    await other.stop();
  });

  it("the leader picks up pipelines created, changed and deleted by another instance within its sync interval", async () => {
    // a scheduler on its own event bus, as in another process: it hears nothing of sluice's pipeline.changed
    const leader = new SchedulerService({
      store: storeOf(sluice),
      events: new SluiceEvents(),
      clock,
      logger: silentLogger,
      runs: ledger,
      timers: realTimers,
      syncIntervalMs: 20,
    });
    await leader.start();
    try {
      expect(leader.isLeader()).toBe(true);
      const settle = () => new Promise((r) => setTimeout(r, 300)); // many sync intervals
      const p = await sluice.pipelines.create({ name: "made elsewhere", schedule: "0 * * * *" });
      await settle();
      clock.set("2026-11-22T10:00:00Z");
      await leader.tick();
      expect(ledger.of(p.id)).toHaveLength(1);
      await sluice.pipelines.update(p.id, { schedule: "30 * * * *" });
      await settle();
      clock.set("2026-11-22T10:30:00Z");
      await leader.tick();
      expect(ledger.of(p.id)).toHaveLength(2);
      await sluice.pipelines.delete(p.id);
      await settle();
      clock.set("2026-11-22T11:30:00Z");
      await leader.tick();
      expect(ledger.of(p.id)).toHaveLength(2);
    } finally {
      await leader.stop();
    }
  });

  it("reloads schedules changed elsewhere without reading any pipeline's definition, and fires with what changed", async () => {
    // 1,000 pipelines of 19 KB held the server for 0.1–0.35 s at every reload, one a second while pipelines were
    // being saved (found by a helper's sweep): a reload reads the schedules' columns, not the pipelines
    const upstream = await sluice.pipelines.create({ name: "upstream" });
    const p = await sluice.pipelines.create({ name: "hourly", schedule: "0 * * * *" });
    const skipped: { pipeline_id: string; blocked_by?: string[] }[] = [];
    const bus = new SluiceEvents();
    bus.on("schedule.skipped", (e) => skipped.push(e));
    // on its own event bus, as in another process: it learns of the change from its sync alone
    const leader = new SchedulerService({
      store: storeOf(sluice),
      events: bus,
      clock,
      logger: silentLogger,
      runs: ledger,
      timers: realTimers,
      syncIntervalMs: 20,
    });
    const knex = storeOf(sluice).knex;
    const sent = await queriesSent(knex, async () => {
      await leader.start();
      await sluice.pipelines.update(p.id, { schedule: "30 * * * *", depends_on: [upstream.id] });
      await reloaded(knex);
      clock.set("2026-11-22T10:30:00Z");
      await leader.tick();
    });
    await leader.stop();
    expect(skipped).toEqual([expect.objectContaining({ pipeline_id: p.id, blocked_by: [upstream.id] })]);
    const reads = sent.filter(({ sql }) => /^select/i.test(sql) && /from [`"]?pipelines\b/i.test(sql));
    expect(reads.filter(({ sql }) => /schedule_timezone/.test(sql)).length).toBeGreaterThanOrEqual(2); // start, reload
    for (const { sql } of reads) expect(sql).not.toMatch(/select \*|\.\*|\bbody\b/i);
  });

  it("reports an SLA miss once per local day", async () => {
    const p = await sluice.pipelines.create({ name: "sla", sla_deadline: "09:00", sla_timezone: "UTC" });
    const missed: { pipeline_id: string; date: string }[] = [];
    sluice.events.on("sla.missed", (e) => missed.push(e));
    await scheduler.start();
    await scheduler.checkSla();
    await scheduler.checkSla();
    expect(missed).toEqual([expect.objectContaining({ pipeline_id: p.id, date: "2026-11-22" })]);
  });

  it("checks SLAs with a turn for the server's other work between pipelines", async () => {
    for (let i = 0; i < 40; i++) await sluice.pipelines.create({ name: `p${i}`, sla_deadline: "23:00" });
    await scheduler.start();
    const { turns } = await holdOf(() => scheduler.checkSla());
    expect(turns).toBeGreaterThanOrEqual(40);
  });

  it("an SLA check stops between pipelines once the scheduler stops", async () => {
    for (let i = 0; i < 40; i++) await sluice.pipelines.create({ name: `late ${i}`, sla_deadline: "09:00" });
    const missed: unknown[] = [];
    sluice.events.on("sla.missed", (e) => missed.push(e));
    await scheduler.start();
    const checking = scheduler.checkSla();
    await scheduler.stop();
    await checking;
    expect(missed.length).toBeLessThan(40);
  });
});
