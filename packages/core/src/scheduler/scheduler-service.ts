import { randomUUID } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { DependencyStatus, SchedulerStatusEntry } from "../model/insights.js";

export type { DependencyStatus, SchedulerStatusEntry };
import { nowIso, type Clock } from "../clock.js";
import type { SluiceEvents } from "../events.js";
import type { Logger } from "../logger.js";
import { notFound } from "../errors.js";
import type { Pipeline } from "../model/pipeline.js";
import type { ScheduleRef, Store } from "../store/ports.js";
import { isDatabaseUnavailable } from "../store/database-unavailable.js";
import { decideCatchUp } from "./catch-up.js";
import { nextRunAt, nextSlot } from "./cron.js";
import type { SchedulerRunsPort, Timers } from "./ports.js";
import { realTimers } from "./ports.js";
import { isSlaMissed } from "./sla.js";

export interface SchedulerDeps {
  store: Store;
  events: SluiceEvents;
  clock: Clock;
  logger: Logger;
  runs: SchedulerRunsPort;
  timers?: Timers;
  /** Lease lifetime; the leader renews at a third of it. */
  leaseTtlMs?: number;
  /** How often SLA deadlines are checked. */
  slaIntervalMs?: number;
  /** How often the leader looks for pipeline changes made by other instances (default 1 s). */
  syncIntervalMs?: number;
}

const LEASE = "scheduler";
/** How long the scheduler waits before trying a slot again while the database is unavailable. */
const SLOT_RETRY_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Entry {
  pipeline: ScheduleRef;
  next: Date;
}

/** What the scheduler keeps of a pipeline: its schedule and dependencies, not its nodes. */
const scheduleRefOf = (p: Pipeline): ScheduleRef => ({
  id: p.id,
  name: p.name,
  schedule: p.schedule,
  schedule_timezone: p.schedule_timezone,
  enabled: p.enabled,
  depends_on: p.depends_on,
  updated_at: p.updated_at,
});

/** Why a slot passed without a run: `blocked_by` when its dependencies were not satisfied. */
interface SkipReason {
  reason: string;
  blocked_by?: string[];
}

const blocked = (blockedBy: string[]): SkipReason => ({
  reason: `dependencies not satisfied: ${blockedBy.join(", ")}`,
  blocked_by: blockedBy,
});

/**
 * Cron scheduling for every enabled pipeline. One instance among those sharing a database holds the scheduler
 * lease; each slot is claimed in the database before its run is created, so a slot fires exactly once. Changes to
 * pipelines (`pipeline.changed`) re-register their schedule at once.
 */
export class SchedulerService {
  readonly instanceId = randomUUID();
  private readonly timers: Timers;
  private readonly entries = new Map<string, Entry>();
  private timer: unknown = null;
  private leaseTimer: unknown = null;
  private slaTimer: unknown = null;
  private syncTimer: unknown = null;
  /** Pending retries of slots that met an unavailable database. */
  private readonly retries = new Set<unknown>();
  private marker: string | null = null;
  private leader = false;
  private running = false;
  private ticking: Promise<void> = Promise.resolve();
  /** The SLA check running now, if any: `stop` waits for it, so an alert it claimed is not left unsent. */
  private slaChecking: Promise<void> = Promise.resolve();
  private readonly onPipelineChanged = (e: { pipeline_id: string; action: string }) => {
    if (this.leader) void this.refresh(e.pipeline_id).catch((err: unknown) => this.fail("refresh", err));
  };

  constructor(private readonly deps: SchedulerDeps) {
    this.timers = deps.timers ?? realTimers;
  }

  private get leaseTtl(): number {
    return this.deps.leaseTtlMs ?? 30_000;
  }

  isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.deps.events.on("pipeline.changed", this.onPipelineChanged);
    await this.renewLease();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.deps.events.off("pipeline.changed", this.onPipelineChanged);
    for (const t of [this.timer, this.leaseTimer, this.slaTimer, this.syncTimer, ...this.retries])
      if (t) this.timers.clearTimeout(t);
    this.retries.clear();
    this.timer = this.leaseTimer = this.slaTimer = this.syncTimer = null;
    await this.ticking.catch(() => undefined);
    await this.slaChecking;
    if (this.leader) await this.deps.store.leases.release(LEASE, this.instanceId).catch(() => undefined);
    this.leader = false;
    this.entries.clear();
  }

  private fail(what: string, err: unknown): void {
    this.deps.logger.error(`scheduler ${what} failed`, { error: err instanceof Error ? err.message : String(err) });
  }

  private async renewLease(): Promise<void> {
    if (!this.running) return;
    try {
      const held = await this.deps.store.leases.acquire(LEASE, this.instanceId, this.leaseTtl, this.deps.clock.now());
      if (held && !this.leader) {
        this.leader = true;
        this.deps.logger.info("scheduler lease acquired; this instance schedules", { instance: this.instanceId });
        try {
          await this.catchUp();
          await this.loadAll();
        } catch (err) {
          // not leading half-way (no cron loop, no sync) while keeping the lease: the next renewal tries again
          this.leader = false;
          throw err;
        }
        this.scheduleSlaCheck();
        this.scheduleSync();
      } else if (!held && this.leader) {
        this.leader = false;
        this.entries.clear();
        if (this.timer) this.timers.clearTimeout(this.timer);
        this.deps.logger.warn("scheduler lease lost; another instance schedules");
      }
    } catch (err) {
      this.fail("lease renewal", err);
    }
    if (this.running)
      this.leaseTimer = this.timers.setTimeout(() => void this.renewLease(), Math.floor(this.leaseTtl / 3));
  }

  /** Start-up catch-up (SPEC part 1, rule 4): before the cron loop, one run per pipeline for a miss < 24 h old. */
  async catchUp(): Promise<void> {
    const now = this.deps.clock.now();
    for (const pipeline of await this.scheduledPipelines()) {
      try {
        await this.catchUpOne(pipeline, now);
      } catch (err) {
        // one pipeline that cannot run (an invalid graph) must not hold back the others' catch-up
        if (isDatabaseUnavailable(err)) throw err;
        this.fail(`catch-up of ${pipeline.id}`, err);
      }
    }
  }

  private async catchUpOne(pipeline: ScheduleRef, now: Date): Promise<void> {
    const latest = await this.deps.runs.latestRun(pipeline.id);
    const decision = decideCatchUp({
      schedule: pipeline.schedule as string,
      tz: pipeline.schedule_timezone ?? "UTC",
      now,
      lastRunAt: latest ? new Date(latest.created_at) : null,
      since: new Date(pipeline.updated_at),
    });
    if (decision.action === "none") return;
    const slotIso = decision.slot.toISOString();
    if (decision.action === "skip")
      return this.skipSlot(pipeline, slotIso, "missed schedule slot skipped", { reason: decision.reason });
    // a catch-up run is the run of a scheduled slot: it waits for its dependencies as the slot's run would have
    const blockedBy = await this.unsatisfiedDependencies(pipeline);
    if (blockedBy.length > 0) return this.skipSlot(pipeline, slotIso, "catch-up run skipped", blocked(blockedBy));
    const run = await this.deps.runs.triggerSlot(pipeline.id, "catchup", slotIso);
    if (run) this.deps.logger.info("catch-up run queued", { pipeline_id: pipeline.id, slot: slotIso, run_id: run.id });
  }

  /**
   * Read in one statement from the database itself, never from an instance's pipeline cache: the sync below reloads
   * when the change marker moved, and must see the write that moved it. Their columns, not their definitions: with
   * 1,000 pipelines of 19 KB, reading those held the server for 0.1–0.35 s at every reload (found by a helper's sweep).
   */
  private async scheduledPipelines(): Promise<ScheduleRef[]> {
    return (await this.deps.store.pipelines.listScheduleRefs()).filter((p) => p.enabled && p.schedule);
  }

  private async loadAll(): Promise<void> {
    this.marker = await this.deps.store.pipelines.changeMarker();
    const previous = new Map(this.entries);
    this.entries.clear();
    for (const pipeline of await this.scheduledPipelines()) this.register(pipeline, previous.get(pipeline.id));
    this.arm();
  }

  /**
   * Pipelines changed on another instance reach no `pipeline.changed` listener here, so the leader compares the
   * store's change marker every second and reloads the schedules when it moved.
   */
  private scheduleSync(): void {
    if (this.syncTimer) this.timers.clearTimeout(this.syncTimer);
    this.syncTimer = this.timers.setTimeout(() => {
      this.syncTimer = null;
      if (!this.running || !this.leader) return;
      void this.deps.store.pipelines
        .changeMarker()
        .then((marker) => (marker !== this.marker && this.leader ? this.loadAll() : undefined))
        .catch((err: unknown) => this.fail("sync", err))
        .finally(() => {
          if (this.running && this.leader) this.scheduleSync();
        });
    }, this.deps.syncIntervalMs ?? 1000);
  }

  /** Re-reads one pipeline and (un)registers its schedule. */
  async refresh(pipelineId: string): Promise<void> {
    const pipeline = await this.deps.store.pipelines.get(pipelineId);
    const previous = this.entries.get(pipelineId);
    this.entries.delete(pipelineId);
    if (pipeline?.enabled && pipeline.schedule) this.register(scheduleRefOf(pipeline), previous);
    this.arm();
  }

  /** Keeps a pending slot of an unchanged schedule, so a reload at the very moment of a slot cannot skip it. */
  private register(pipeline: ScheduleRef, previous?: Entry): void {
    try {
      const tz = pipeline.schedule_timezone ?? "UTC";
      const unchanged =
        previous &&
        previous.pipeline.schedule === pipeline.schedule &&
        (previous.pipeline.schedule_timezone ?? "UTC") === tz;
      const next = unchanged ? previous.next : nextSlot(pipeline.schedule as string, tz, this.deps.clock.now());
      this.entries.set(pipeline.id, { pipeline, next });
    } catch (err) {
      this.fail(`registration of ${pipeline.id}`, err);
    }
  }

  private arm(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (!this.running || !this.leader || this.entries.size === 0) return;
    const earliest = Math.min(...[...this.entries.values()].map((e) => e.next.getTime()));
    const delay = Math.min(Math.max(0, earliest - this.deps.clock.now().getTime()), MAX_TIMER_MS);
    this.timer = this.timers.setTimeout(() => void this.tick(), delay);
  }

  /** Fires every slot that is due at the clock's current time (the timer calls it; tests may too). */
  tick(): Promise<void> {
    this.ticking = this.ticking.then(() => this.fireDue()).catch((err: unknown) => this.fail("tick", err));
    return this.ticking;
  }

  private async fireDue(): Promise<void> {
    const now = this.deps.clock.now();
    const due = [...this.entries.values()].filter((e) => e.next.getTime() <= now.getTime());
    await Promise.all(due.map((entry) => this.fire(entry, now)));
    this.arm();
  }

  private async fire(entry: Entry, now: Date): Promise<void> {
    const { pipeline } = entry;
    const slotIso = entry.next.toISOString();
    entry.next = nextSlot(pipeline.schedule as string, pipeline.schedule_timezone ?? "UTC", now);
    await this.fireSlot(pipeline, slotIso, entry.next.getTime());
  }

  /**
   * Records one slot and queues its run, or its `schedule.skipped`. While the database is unavailable (restarting,
   * connection lost) it tries again every second, until the pipeline's next slot is due; recording is atomic, so a
   * retry whose earlier attempt did reach the database finds the slot fired and adds nothing.
   */
  private async fireSlot(pipeline: ScheduleRef, slotIso: string, retryUntil: number): Promise<void> {
    try {
      const blockedBy = await this.unsatisfiedDependencies(pipeline);
      if (blockedBy.length === 0) {
        const run = await this.deps.runs.triggerSlot(pipeline.id, "schedule", slotIso);
        if (run)
          this.deps.logger.info("scheduled run queued", { pipeline_id: pipeline.id, slot: slotIso, run_id: run.id });
        else this.deps.logger.info("schedule slot already fired", { pipeline_id: pipeline.id, slot: slotIso });
        return;
      }
      await this.skipSlot(pipeline, slotIso, "scheduled run skipped", blocked(blockedBy));
    } catch (err) {
      const retryAt = this.deps.clock.now().getTime() + SLOT_RETRY_MS;
      if (!isDatabaseUnavailable(err) || !this.running || !this.leader || retryAt >= retryUntil)
        return this.fail(`slot ${slotIso} of ${pipeline.id}`, err);
      this.deps.logger.warn("database unavailable; the schedule slot is tried again in 1 s", {
        pipeline_id: pipeline.id,
        slot: slotIso,
      });
      const handle = this.timers.setTimeout(() => {
        this.retries.delete(handle);
        if (this.running && this.leader) void this.fireSlot(pipeline, slotIso, retryUntil);
      }, SLOT_RETRY_MS);
      this.retries.add(handle);
    }
  }

  /**
   * Records `slotIso` of `pipeline` as passed without a run, once across instances: logged (`message`) and announced
   * (`schedule.skipped`), with why.
   */
  private async skipSlot(
    pipeline: Pick<ScheduleRef, "id">,
    slotIso: string,
    message: string,
    why: SkipReason,
  ): Promise<void> {
    if (!(await this.deps.store.schedulerState.claimSlot(pipeline.id, slotIso))) return;
    this.deps.logger.info(message, { pipeline_id: pipeline.id, slot: slotIso, ...why });
    this.deps.events.emit("schedule.skipped", {
      pipeline_id: pipeline.id,
      slot: slotIso,
      ...why,
      timestamp: nowIso(this.deps.clock),
    });
  }

  /** Ids of dependencies whose most recent run is not `success` (SPEC part 1, rule 5). */
  async unsatisfiedDependencies(pipeline: Pick<Pipeline, "depends_on">): Promise<string[]> {
    const blocked: string[] = [];
    for (const dep of pipeline.depends_on) {
      const latest = await this.deps.runs.latestRun(dep);
      if (latest?.status !== "success") blocked.push(dep);
    }
    return blocked;
  }

  /** `GET /pipelines/{id}/deps`: each dependency with its latest run status and whether it is satisfied. */
  async dependencies(pipelineId: string): Promise<DependencyStatus[]> {
    const pipeline = await this.deps.store.pipelines.get(pipelineId);
    if (!pipeline) throw notFound("pipeline", pipelineId);
    const refs = new Map((await this.deps.store.pipelines.listDependencyRefs()).map((r) => [r.id, r.name]));
    return Promise.all(
      pipeline.depends_on.map(async (dep) => {
        const latest = refs.has(dep) ? await this.deps.runs.latestRun(dep) : null;
        return {
          pipeline_id: dep,
          name: refs.get(dep) ?? null,
          last_status: latest?.status ?? null,
          satisfied: latest?.status === "success",
        };
      }),
    );
  }

  private scheduleSlaCheck(): void {
    if (!this.running || !this.leader) return;
    this.slaTimer = this.timers.setTimeout(() => {
      this.slaChecking = this.checkSla()
        .catch((err: unknown) => this.fail("SLA check", err))
        .finally(() => this.scheduleSlaCheck());
    }, this.deps.slaIntervalMs ?? 30_000);
  }

  /** Emits `sla.missed` once per pipeline and local day when no success finished by the deadline. */
  async checkSla(): Promise<void> {
    const now = this.deps.clock.now();
    const { items } = await this.deps.store.pipelines.list();
    for (const summary of items) {
      if (!summary.enabled) continue;
      // a turn for the server's other work between pipelines: on SQLite the reads below resolve without one, and
      // 1,000 enabled pipelines held the server for 0.2–0.3 s every 30 s (found by a helper's sweep); stopped there
      await nextTurn();
      if (!this.running || !this.leader) return;
      const pipeline = await this.deps.store.pipelines.get(summary.id);
      if (!pipeline?.sla_deadline) continue;
      const tz = pipeline.sla_timezone ?? "UTC";
      const state = await this.deps.store.schedulerState.get(pipeline.id);
      const lastSuccess = await this.deps.runs.lastSuccessFinishedAt(pipeline.id);
      const check = isSlaMissed({
        deadline: pipeline.sla_deadline,
        tz,
        now,
        lastSuccessFinishedAt: lastSuccess ? new Date(lastSuccess) : null,
        lastReportedDate: state?.last_sla_date ?? null,
      });
      if (!check.missed) continue;
      if (!(await this.deps.store.schedulerState.claimSlaDate(pipeline.id, check.window.date))) continue;
      this.deps.logger.warn("SLA missed", { pipeline_id: pipeline.id, date: check.window.date });
      this.deps.events.emit("sla.missed", {
        pipeline_id: pipeline.id,
        pipeline_name: pipeline.name,
        date: check.window.date,
        deadline: check.window.deadline.toISOString(),
        timestamp: now.toISOString(),
      });
    }
  }

  /** `GET /scheduler/status`: every pipeline with a schedule. */
  async status(): Promise<SchedulerStatusEntry[]> {
    const now = this.deps.clock.now();
    // two queries for all pipelines, not two for each: on SQLite a loop of queries holds the server's thread, and
    // 1,000 scheduled pipelines took 0.5–0.7 s (found by a helper's sweep); newest first, as the listing
    const [refs, latest] = await Promise.all([
      this.deps.store.pipelines.listScheduleRefs(),
      this.deps.store.insights.latestRuns(),
    ]);
    const lastRunAt = new Map(latest.map((r) => [r.pipeline_id, r.created_at]));
    const out: SchedulerStatusEntry[] = [];
    for (const ref of refs) {
      if (!ref.schedule) continue;
      out.push({
        pipeline_id: ref.id,
        pipeline_name: ref.name,
        schedule: ref.schedule,
        timezone: ref.schedule_timezone ?? "UTC",
        enabled: ref.enabled,
        next_run: nextRunAt(ref, now)?.toISOString() ?? null,
        last_run: lastRunAt.get(ref.id) ?? null,
      });
    }
    return out;
  }
}
